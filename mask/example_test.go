package mask_test

import (
	"encoding/hex"
	"fmt"
	"log"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/mask"
)

func Example() {
	// A secret of 32 random bytes (crypto/rand), kept out of the code; this
	// one is fixed so that the output below is reproducible.
	secret, _ := hex.DecodeString("2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f7f036d6f04fc6a94")
	ring, err := mask.New(secret)
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range []snowlab.ID{141264821508263936, 141264821508263937, 141264821508263938} {
		public, _ := ring.Encode(id) // for a URL, an API response, a page
		back, _ := ring.Decode(public)
		fmt.Println(id, public, back)
	}
	_, err = ring.Decode("vstx4rc8c1sj06z30") // one character changed
	fmt.Println(err)
	// Output:
	// 141264821508263936 vstx4rc8c1sj06y30 141264821508263936
	// 141264821508263937 ync9kcsf01wfj0z10 141264821508263937
	// 141264821508263938 nbw4aye8drmb8ctm0 141264821508263938
	// snowlab: invalid ID: "vstx4rc8c1sj06z30" fails its check under key version 0: changed, made up, or made under another key
}

// A Keyring encodes with its newest key and still reads the strings of the
// older ones.
func ExampleNewKeyring() {
	oldSecret, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f")
	newSecret, _ := hex.DecodeString("f0e1d2c3b4a5968778695a4b3c2d1e0f0123456789abcdef00112233445566ff")
	before, _ := mask.New(oldSecret) // version 0
	link, _ := before.Encode(42)

	ring, err := mask.NewKeyring(mask.Key{Version: 1, Secret: newSecret}, mask.Key{Version: 0, Secret: oldSecret})
	if err != nil {
		log.Fatal(err)
	}
	now, _ := ring.Encode(42)
	fmt.Println(link, now)
	fmt.Println(ring.Decode(link))
	fmt.Println(ring.Decode(now))
	fmt.Println(ring)
	// Output:
	// fb2t40vq4m4ftkcn0 e95ebv92ae8q82hd1
	// 42 <nil>
	// 42 <nil>
	// mask.Keyring{Newest: 1, Versions: [0 1]}
}
