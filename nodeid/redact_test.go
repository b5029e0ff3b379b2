package nodeid_test

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/nodeid"
)

// marker is the password the tests hide in every position: a string no
// host, user, key or message of theirs holds.
const marker = "Zq9Mark"

// redactCases: a marker password in every position and form pgx and etcd
// take, and what Redact shows of each: scheme, hosts, ports, database,
// user and the safe parameters, nothing else.
var redactCases = []struct{ in, want string }{
	// URL user information: the password runs to the last '@', whatever
	// ends a component inside it.
	{"pg:postgres://snow:Zq9Mark@db.internal:5432/app?sslmode=verify-full", "pg:postgres://snow:xxxxx@db.internal:5432/app?sslmode=xxxxx"},
	{"pg:postgres://snow:ab?Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:ab#Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:ab Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:ab@Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:ab/Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:ab:Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:ab%40Zq9Mark%2F@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgres://snow:a,b://Zq9Mark@h/db", "pg:postgres://snow:xxxxx@h/db"},
	{"pg:postgresql://snow:Zq9Mark@h1:5432,h2:5433/db?target_session_attrs=read-write", "pg:postgresql://snow:xxxxx@h1:5432,h2:5433/db?target_session_attrs=xxxxx"},
	{"pg:postgres://snow:Zq9Mark@[::1]:5432/db", "pg:postgres://snow:xxxxx@[::1]:5432/db"},
	{"pg:postgres://sn%2Fow:Zq9Mark@h/db", "pg:postgres://sn%2Fow:xxxxx@h/db"}, // a user is shown
	{"pg:postgres://a%20b%3A:Zq9Mark@h/db", "pg:postgres://a%20b%3A:xxxxx@h/db"},
	{"pg:postgres://us'er:Zq9Mark@h/db", "pg:postgres://xxxxx:xxxxx@h/db"},
	// URL query: a value is shown only under a key naming what a URL
	// shows (or one its Opener says is safe: TestOpenStoreShowsSafeParams).
	{"pg:postgres://snow@h/db?password=Zq9Mark&sslmode=disable", "pg:postgres://snow@h/db?password=xxxxx&sslmode=xxxxx"},
	{"pg:postgres://snow@h/db?pass%77ord=Zq9Mark", "pg:postgres://snow@h/db?pass%77ord=xxxxx"},
	{"pg:postgres://snow@h/db?sslpassword=Zq9Mark&sslkey=/k.pem", "pg:postgres://snow@h/db?sslpassword=xxxxx&sslkey=xxxxx"},
	{"pg:postgres://snow@h/db?PASSWORD=Zq9Mark", "pg:postgres://snow@h/db?PASSWORD=xxxxx"},
	{"pg:postgres://snow@h/db?options=-c%20x%3DZq9Mark", "pg:postgres://snow@h/db?options=xxxxx"},
	{"pg:postgres://snow@h/db?password=a&Zq9Mark", "pg:postgres://snow@h/db?password=xxxxx&xxxxx"},
	{"pg:postgres://snow@h/db?password=a%26Zq9Mark#frag", "pg:postgres://snow@h/db?password=xxxxx#xxxxx"},
	{"pg:postgres://snow@h/db#?password=Zq9Mark", "pg:postgres://snow@h/db#xxxxx"},
	{"pg:postgres://snow@h/db?snowlab_table=ids&user=snow", "pg:postgres://snow@h/db?snowlab_table=xxxxx&user=snow"},
	// key=value, by libpq's rules.
	{"pg:host=h user=snow password=Zq9Mark dbname=db", "pg:host=h user=snow password=xxxxx dbname=db"},
	{"pg:host=h password='a Zq9Mark' dbname=db", "pg:host=h password=xxxxx dbname=db"},
	{`pg:host=h password='it\'s Zq9Mark' dbname=db`, "pg:host=h password=xxxxx dbname=db"},
	{`pg:host=h password="Zq9Mark" dbname=db`, "pg:host=h password=xxxxx dbname=db"},
	{`pg:host=h password=a\ Zq9Mark dbname=db`, "pg:host=h password=xxxxx dbname=db"},
	{"pg:host=h password = Zq9Mark  dbname =db", "pg:host=h password=xxxxx dbname=db"},
	{"pg:host=h1,h2 port=5432,5433 user=snow password=Zq9Mark sslpassword=Zq9Mark", "pg:host=h1,h2 port=5432,5433 user=snow password=xxxxx sslpassword=xxxxx"},
	{"pg:host=h PassWord=Zq9Mark", "pg:host=h PassWord=xxxxx"},
	{"pg:host=h dbname='my db'", "pg:host=h dbname=xxxxx"}, // not a plain word: not shown
	// Key=value strings that do not parse: described by their length,
	// never quoted.
	{`pg:host=h password="a Zq9Mark" dbname=db`, "pg:<a key=value string that does not parse, 37 bytes>"},
	{"pg:host=h password='Zq9Mark", "pg:<a key=value string that does not parse, 24 bytes>"},
	{"pg:Zq9Mark", "pg:xxxxx"},
	{"pg:host=h password=a Zq9Mark", "pg:<a key=value string that does not parse, 25 bytes>"},
	// etcd endpoints, snowidd's -peers, other URLs.
	{"etcd:http://bob:pw?Zq9Mark@h:2379/app", "etcd:http://bob:xxxxx@h:2379/app"},
	{"etcd:http://bob:Zq9Mark@h1:2379,http://h2:2379/app", "etcd:http://bob:xxxxx@h1:2379,http://h2:2379/app"},
	{"etcd:http://h1:2379,https://bob:Zq9Mark@h2:2379/app", "etcd:http://h1:xxxxx@h2:2379/app"}, // all before the last '@' is user information
	{"etcd:bob:Zq9Mark@h:2379/app", "etcd:bob:xxxxx@h:2379/app"},
	{"etcd:h1:2379,h2:2379/app", "etcd:h1:2379,h2:2379/app"},
	{"etcd:https://127.0.0.1:2379", "etcd:https://127.0.0.1:2379"},
	{"http://ops:Zq9Mark@h:1", "http://ops:xxxxx@h:1"},
	{"http://ops:Zq9Mark@h:1,https://h2:2", "http://ops:xxxxx@h:1,https://h2:2"},
	{"http://h:1/?token=Zq9Mark", "http://h:1/?token=xxxxx"},
	{"http://h:Zq9Mark", "http://h:xxxxx"},
	{"x y://Zq9Mark@h", "xxxxx:xxxxx@h"},                                           // no scheme: user information
	{"pg:a=b password=,x://Zq9Mark,x:// c=d", "pg:a=xxxxx password=xxxxx c=xxxxx"}, // no URL list
	// Command-line arguments.
	{"-lease=pg:postgres://snow:Zq9Mark@h/db", "-lease=pg:postgres://snow:xxxxx@h/db"},
	{"--pg=host=h password=Zq9Mark", "--pg=host=h password=xxxxx"},
	{"bob:Zq9Mark", "bob:xxxxx"}, // etcdctl's --user NAME:PASSWORD
	{"mock:Zq9Mark", "mock:xxxxx"},
	{"static:Zq9Mark", "static:xxxxx"},
	{"a=Zq9Mark", "a=xxxxx"},
	// Nothing to hide: shown as given.
	{"dir:/tmp/lease", "dir:/tmp/lease"},
	{"static:3", "static:3"},
	{"pg:", "pg:"}, // nothing to hide: OpenStore says the location is missing
	{"k8s:ns/prefix", "k8s:ns/prefix"},
	{"127.0.0.1:8080", "127.0.0.1:8080"},
	{"localhost:8080", "localhost:8080"},
	{"-n", "-n"},
	{"btree", "btree"},
	{"", ""},
}

func TestRedact(t *testing.T) {
	for _, tc := range redactCases {
		got := nodeid.Redact(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.NotContains(t, got, marker, tc.in)
	}
}

// TestOpenStoreRedacts: a password in a spec, or in what an Opener's error
// quotes of it (raw, decoded or escaped), never reaches OpenStore's error;
// the user name does, and errors.Is sees both the sentinel and the
// Opener's error.
func TestOpenStoreRedacts(t *testing.T) {
	opened := errors.New("mock: refused")
	echo := nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		return nil, fmt.Errorf("%w: %q, %s, %s", opened, rest, url.QueryEscape(rest), strings.ReplaceAll(rest, `\`, ""))
	})
	extra := map[string]nodeid.Opener{"mock": echo, "pg": echo, "etcd": echo}
	for _, tc := range redactCases {
		if !strings.Contains(tc.in, marker) {
			continue
		}
		spec := tc.in
		if name, _, _ := strings.Cut(spec, ":"); extra[name] == nil {
			spec = "mock:" + spec
		}
		_, err := nodeid.OpenStore(spec, extra)
		require.ErrorIs(t, err, nodeid.ErrInvalidSpec, spec)
		require.ErrorIs(t, err, opened, spec)
		assert.NotContains(t, err.Error(), marker, spec)
		assert.Contains(t, err.Error(), nodeid.Redact(spec), spec)
	}
	_, err := nodeid.OpenStore("nosuch:postgres://snow:"+marker+"@h/db", extra)
	require.ErrorIs(t, err, nodeid.ErrInvalidSpec)
	assert.NotContains(t, err.Error(), marker)
	assert.Contains(t, err.Error(), "snow")
}

// escapeLibpq writes v as an unquoted libpq value: a backslash before
// each space, backslash and quote.
func escapeLibpq(v string) string {
	var b strings.Builder
	for _, c := range []byte(v) {
		if strings.IndexByte(" \t\n\r\v\f\\'", c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// quoteLibpq writes v as a single-quoted libpq value.
func quoteLibpq(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// markedSpecs are the specs with password pw in each position and form:
// raw and percent-encoded in a URL's user information, encoded in its
// query under each secret key, quoted and escaped in a key=value string,
// and in etcd's and snowidd's URLs.
func markedSpecs(pw string) []string {
	return []string{
		"pg:postgres://snow:" + pw + "@h:5432/db?sslmode=disable",
		"pg:postgresql://snow:" + url.PathEscape(pw) + "@h1,h2:5433/db",
		"pg:postgres://snow:" + url.QueryEscape(pw) + "@h/db",
		"pg:postgres://snow@h/db?password=" + url.QueryEscape(pw) + "&sslmode=disable",
		"pg:postgres://h/db?pass%77ord=" + url.QueryEscape(pw),
		"pg:postgres://h/db?sslpassword=" + url.QueryEscape(pw) + "&user=snow",
		"pg:host=h user=snow password=" + escapeLibpq(pw) + " dbname=db",
		"pg:host=h user=snow password=" + quoteLibpq(pw) + " dbname=db",
		"pg:host=h,h2 password =  " + quoteLibpq(pw),
		"pg:sslpassword=" + escapeLibpq(pw),
		"etcd:http://bob:" + pw + "@h:2379/app",
		"etcd:https://h1:2379,https://bob:" + url.PathEscape(pw) + "@h2:2379",
		"http://ops:" + pw + "@h:1",
		"-lease=pg:postgres://snow:" + pw + "@h/db",
	}
}

// TestOpenStoreShowsSafeParams: OpenStore's error shows the value of a
// parameter its scheme's Opener says is safe (SafeParam), and masks the
// others; Redact, which knows no Opener, masks them all.
func TestOpenStoreShowsSafeParams(t *testing.T) {
	refused := errors.New("refused")
	extra := map[string]nodeid.Opener{"db": safeOpener{nodeid.OpenerFunc(func(string) (nodeid.Store, error) { return nil, refused })}}
	for _, tc := range []struct{ spec, want string }{
		{"db:postgres://u:" + marker + "@h/d?mode=safe&secret=" + marker, "db:postgres://u:xxxxx@h/d?mode=safe&secret=xxxxx"},
		{"db:host=h mode=safe secret=" + marker, "db:host=h mode=safe secret=xxxxx"},
		{"db:host=h mode='not a word'", "db:host=h mode=xxxxx"},
		{"-lease=db:host=h mode=safe", "-lease=db:host=h mode=safe"},
	} {
		_, err := nodeid.OpenStore(strings.TrimPrefix(tc.spec, "-lease="), extra)
		if strings.HasPrefix(tc.spec, "-lease=") {
			assert.Equal(t, tc.want, "-lease="+strings.Split(err.Error(), `"`)[1], tc.spec)
		} else {
			require.ErrorIs(t, err, refused)
			assert.Contains(t, err.Error(), `"`+tc.want+`"`, tc.spec)
		}
		assert.NotContains(t, err.Error(), marker, tc.spec)
		assert.NotContains(t, nodeid.Redact(tc.spec), "mode=safe", "Redact knows no Opener: %s", tc.spec)
	}
}

// safeOpener is an Opener whose locations' parameter "mode" holds no
// secret.
type safeOpener struct{ nodeid.Opener }

func (safeOpener) SafeParam(key string) bool { return key == "mode" }

// FuzzRedact puts a password, marker with anything around it, in every
// position and form of markedSpecs: neither Redact nor OpenStore's error
// (its Opener quoting the spec) ever holds the marker. The seeds run as a
// normal test.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"", "?", "#", " ", "@", "/", ":", "%", "'", `\`, `"`, "&", "=", ",x://", "a b@c/d?e#f"} {
		f.Add(s, s)
	}
	f.Add("p@ss", "w0rd?#")
	f.Add("a'b", `c\'d`)
	f.Add(`"`, `" x`)
	echo := nodeid.OpenerFunc(func(rest string) (nodeid.Store, error) {
		return nil, fmt.Errorf("mock: %q", rest)
	})
	extra := map[string]nodeid.Opener{"pg": echo, "etcd": echo, "mock": echo}
	f.Fuzz(func(t *testing.T, pre, post string) {
		for _, spec := range markedSpecs(pre + marker + post) {
			if got := nodeid.Redact(spec); strings.Contains(got, marker) {
				t.Fatalf("Redact(%q) = %q", spec, got)
			}
			if strings.HasPrefix(spec, "http") || strings.HasPrefix(spec, "-") {
				spec = "mock:" + spec
			}
			if _, err := nodeid.OpenStore(spec, extra); err == nil || strings.Contains(err.Error(), marker) {
				t.Fatalf("OpenStore(%q): %v", spec, err)
			}
		}
	})
}
