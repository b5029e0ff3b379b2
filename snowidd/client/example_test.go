package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/snowidd/client"
	"github.com/snowlab/snowlab/snowidd/server"
)

// A client over two replicas: the first is down, so every call goes to
// the second.
func Example() {
	// A replica in this process stands in for a fleet.
	srv, _ := server.New(server.Config{})
	gen, _ := atomicgen.New(snowlab.Config{Node: 42})
	srv.Use(gen, snowlab.Config{Node: 42}, nil, 1)
	ts := httptest.NewUnstartedServer(srv.Handler())
	ts.Config.Protocols = server.Protocols()
	ts.Listener = server.NewListener(ts.Listener) // as the server's doc says
	ts.Start()
	defer ts.Close()

	c, err := client.New(client.Config{Targets: []string{"http://127.0.0.1:1", ts.URL}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := c.NextIDs(context.Background(), 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(ids), "IDs from node", snowlab.DefaultLayout.Decode(ids[0]).Node)
	// Output: 3 IDs from node 42
}
