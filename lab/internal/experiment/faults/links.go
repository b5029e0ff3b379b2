package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
)

// links are the network between the replicas and etcd: for each replica
// and each etcd member a toxiproxy proxy, run in this process, that the
// replica's lease spec names instead of the member, so that a fault can
// be put on one replica's links alone. TLS passes through untouched
// (the proxies relay bytes).
type links struct {
	api     *toxiproxy.ApiServer
	mu      sync.Mutex
	proxies map[int][]*toxiproxy.Proxy // by replica, one per member
	members []string                   // the members' client URLs
}

// newLinks makes the proxy server for a cluster whose members' client
// URLs are endpoints.
func newLinks(endpoints []string) *links {
	return &links{api: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop()),
		proxies: map[int][]*toxiproxy.Proxy{}, members: endpoints}
}

// For returns replica r's endpoints: one proxy per member, made on the
// first call, as URLs with the members' scheme.
func (l *links) For(r int) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ps, ok := l.proxies[r]
	if !ok {
		for m, ep := range l.members {
			u, err := url.Parse(ep)
			if err != nil {
				return nil, err
			}
			p := toxiproxy.NewProxy(l.api, fmt.Sprintf("r%d-m%d", r, m), "127.0.0.1:0", u.Host)
			if err := p.Start(); err != nil {
				return nil, fmt.Errorf("faults: link from replica %d to etcd %d: %w", r, m, err)
			}
			ps = append(ps, p)
		}
		l.proxies[r] = ps
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		scheme, _, _ := strings.Cut(l.members[i], "://")
		out[i] = scheme + "://" + p.Listen
	}
	return out, nil
}

// direction is which way a toxic acts on a link.
type direction string

const (
	// upstream is from the replica to etcd: its requests.
	upstream direction = "upstream"
	// downstream is from etcd to the replica: the answers.
	downstream direction = "downstream"
)

// Blackhole drops every byte that flows in the directions given on
// replica r's links, connections kept open (nothing closes them, as
// with packets silently lost), until Heal.
func (l *links) Blackhole(r int, dirs ...direction) error {
	for _, d := range dirs {
		if err := l.toxic(r, "blackhole", d, `"timeout"`, `{"timeout":0}`); err != nil {
			return err
		}
	}
	return nil
}

// Degrade adds latency (each way, jitter ± around it) and loses each
// segment-sized chunk with probability loss, both ways, on replica r's
// links: a lost chunk reaches the other side one retransmission timeout
// (200 ms, Linux's minimum, doubled each time the retransmission is lost
// too) late, the stream held behind it, which is what a TCP stream does
// with a lost segment.
func (l *links) Degrade(r int, latency, jitter time.Duration, loss float64) error {
	for _, d := range []direction{upstream, downstream} {
		if latency > 0 {
			if err := l.toxic(r, "latency", d, `"latency"`, fmt.Sprintf(`{"latency":%d,"jitter":%d}`, latency.Milliseconds(), jitter.Milliseconds())); err != nil {
				return err
			}
		}
		if loss > 0 {
			if err := l.toxic(r, "segments", d, `"slicer"`, `{"average_size":1448,"size_variation":0,"delay":0}`); err != nil {
				return err
			}
			if err := l.toxic(r, "loss", d, `"`+lossToxicType+`"`, fmt.Sprintf(`{"probability":%g,"rto":200}`, loss)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Heal removes every toxic from replica r's links.
func (l *links) Heal(r int) {
	l.mu.Lock()
	ps := l.proxies[r]
	l.mu.Unlock()
	for _, p := range ps {
		p.Toxics.ResetToxics(context.Background())
	}
}

func (l *links) toxic(r int, name string, d direction, typ, attrs string) error {
	l.mu.Lock()
	ps := l.proxies[r]
	l.mu.Unlock()
	if ps == nil {
		return fmt.Errorf("faults: replica %d has no links", r)
	}
	for _, p := range ps {
		body := fmt.Sprintf(`{"name":%q,"type":%s,"stream":%q,"toxicity":1,"attributes":%s}`, name+"_"+string(d), typ, d, attrs)
		if _, err := p.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
			return fmt.Errorf("faults: %s on %s: %w", name, p.Name, err)
		}
	}
	return nil
}

// Close stops every proxy.
func (l *links) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ps := range l.proxies {
		for _, p := range ps {
			p.Stop()
		}
	}
}

// lossToxicType names lossToxic in toxiproxy's registry of toxic types.
const lossToxicType = "snowlab_loss"

// toxiproxy looks its toxic types up by name in a registry of its own,
// which its toxics fill from init functions, as this one does.
func init() { toxics.Register(lossToxicType, new(lossToxic)) }

// lossToxic delays a chunk by a retransmission timeout with probability
// Probability, again (the timeout doubled) while the retransmission is
// lost too, holding back what follows: TCP's answer to a lost segment.
type lossToxic struct {
	Probability float64 `json:"probability"`
	RTO         int64   `json:"rto"` // ms
}

func (t *lossToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			rto := time.Duration(t.RTO) * time.Millisecond
			for rand.Float64() < t.Probability {
				select {
				case <-time.After(rto):
				case <-stub.Interrupt:
					stub.Output <- c
					return
				}
				rto = min(2*rto, 30*time.Second)
			}
			stub.Output <- c
		}
	}
}
