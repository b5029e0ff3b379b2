package pglease

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/nodeid"
)

// marker is the password the tests hide: no host, user or key holds it.
const marker = "Zq9Mark"

// markedDSNs are DSNs with marker in every password position and form,
// HOST standing for a loopback HOST:PORT, and the password pgx reads from
// each: "" where pgx refuses the DSN, "-" where it takes it but the
// password is not Config.Password (sslpassword), "!" before it where pgx
// takes it and Open refuses it.
var markedDSNs = []struct{ dsn, password string }{
	{"postgres://snow:Zq9Mark@HOST/db?sslmode=disable", "Zq9Mark"},
	{"postgres://snow:ab?Zq9Mark@HOST/db", "ab?Zq9Mark"},
	{"postgres://snow:ab#Zq9Mark@HOST/db", "ab#Zq9Mark"},
	{"postgres://snow:ab:Zq9Mark@HOST/db", "ab:Zq9Mark"},
	{"postgres://snow:ab%40Zq9Mark%2F%20@HOST/db", "ab@Zq9Mark/ "},
	{"postgres://snow:ab@Zq9Mark@HOST/db", "!ab"}, // the rest a host to pgx: Open refuses it
	{"postgresql://snow:Zq9Mark@HOST,HOST/db", "Zq9Mark"},
	{"postgres://snow@HOST/db?password=Zq9Mark&sslmode=disable", "Zq9Mark"},
	{"postgres://snow@HOST/db?pass%77ord=Zq9Mark", "Zq9Mark"},
	{"postgres://snow@HOST/db?password=a%20%26Zq9Mark", "a &Zq9Mark"},
	{"postgres://snow@HOST/db?sslpassword=Zq9Mark", "-"},
	{"host=H port=P user=snow password=Zq9Mark dbname=db", "Zq9Mark"},
	{"host=H port=P user=snow password='a Zq9Mark' dbname=db", "a Zq9Mark"},
	{`host=H port=P user=snow password='it\'s Zq9Mark' dbname=db`, "it's Zq9Mark"},
	{`host=H port=P user=snow password="Zq9Mark" dbname=db`, `"Zq9Mark"`}, // double quotes are not quotes to libpq
	{`host=H port=P user=snow password=a\ Zq9Mark dbname=db`, "a Zq9Mark"},
	{"host=H port=P user=snow password = Zq9Mark  dbname = db", "Zq9Mark"},
	{"host=H,H port=P,P user=snow password=Zq9Mark", "Zq9Mark"},
	{"host=H port=P user=snow sslpassword=Zq9Mark", "-"},
	// Refused by pgx: described, never quoted.
	{"postgres://snow:ab Zq9Mark@HOST/db", ""},
	{"postgres://snow:ab/Zq9Mark@HOST/db", ""},
	{"postgres://snow:Zq9Mark@[::1/db", ""},
	{"postgres://snow:Zq9Mark@HOST:99999/db", ""},
	{`host=H port=P user=snow password="a Zq9Mark" dbname=db`, ""},
	{"host=H port=P user=snow password='Zq9Mark", ""},
	{"host=H port=P user=snow password=a Zq9Mark", ""},
	{"host=H port=P user=snow password=a Zq9Mark x=y", ""},
	{"host=H port=P password=Zq9Mark sslmode=bogus", ""},
}

// described is how nodeid.OpenStore's errors name "pg:"+dsn: with the
// values of the parameters Opener's SafeParam names shown.
func described(t *testing.T, dsn string) string {
	t.Helper()
	refused := errors.New("refused")
	_, err := nodeid.OpenStore("pg:"+dsn, map[string]nodeid.Opener{"pg": refusing{opener{time.Second}, refused}})
	require.ErrorIs(t, err, refused)
	_, named, _ := strings.Cut(err.Error(), nodeid.ErrInvalidSpec.Error()+" ")
	named, _, _ = strings.Cut(named, ": "+refused.Error())
	name, err := strconv.Unquote(named)
	require.NoError(t, err, "%s", named)
	return name
}

// refusing is Opener's SafeParam with an Open that refuses every DSN.
type refusing struct {
	opener
	err error
}

func (r refusing) Open(string) (nodeid.Store, error) { return nil, r.err }

// The values of the parameters SafeParam names are shown, every other is
// masked, and what nodeid.Redact shows without it is shown too.
func TestSafeParams(t *testing.T) {
	for _, tc := range []struct{ dsn, want string }{
		{"postgres://snow:" + marker + "@db.internal:5432/app?sslmode=verify-full&snowlab_table=ids",
			"pg:postgres://snow:xxxxx@db.internal:5432/app?sslmode=verify-full&snowlab_table=ids"},
		{"postgres://snow@h/db?password=" + marker + "&sslkey=/k.pem&options=-c%20x", "pg:postgres://snow@h/db?password=xxxxx&sslkey=/k.pem&options=xxxxx"},
		{"host=h1,h2 port=5432,5433 user=snow password=" + marker + " sslmode=disable target_session_attrs=read-write",
			"pg:host=h1,h2 port=5432,5433 user=snow password=xxxxx sslmode=disable target_session_attrs=read-write"},
		{"host=h PassWord=" + marker + " application_name='my app'", "pg:host=h PassWord=xxxxx application_name=xxxxx"},
	} {
		assert.Equal(t, tc.want, described(t, tc.dsn), tc.dsn)
		assert.NotContains(t, nodeid.Redact("pg:"+tc.dsn), "sslmode=disable", "nodeid.Redact knows no pglease")
	}
}

// TestRedactWhatPgxTakes: each form is one pgx's parser reads as the test
// says (so the table covers what the driver takes), and the marker never
// reaches nodeid.Redact, OpenStore's description or errors, or Acquire's
// on a server that is not there; the user and host do.
func TestRedactWhatPgxTakes(t *testing.T) {
	addr := closedPort(t)
	host, port, _ := strings.Cut(addr, ":")
	extra := map[string]nodeid.Opener{"pg": Opener(time.Second)}
	for _, tc := range markedDSNs {
		dsn := strings.NewReplacer("HOST", addr, "H", host, "P", port).Replace(tc.dsn)
		t.Run(tc.dsn, func(t *testing.T) {
			cfg, err := pgconn.ParseConfig(dsn)
			red := described(t, dsn)
			assert.NotContains(t, red, marker)
			assert.NotContains(t, nodeid.Redact("pg:"+dsn), marker)
			if tc.password == "" {
				require.Error(t, err, "pgx takes it")
				_, err = nodeid.OpenStore("pg:"+dsn, extra)
				requireNoSecret(t, err, "OpenStore", marker)
				return
			}
			require.NoError(t, err)
			want, refused := strings.CutPrefix(tc.password, "!")
			if want != "-" {
				assert.Equal(t, want, cfg.Password)
			}
			for _, shown := range []string{"snow", host} {
				assert.Contains(t, red, shown)
			}
			bad := " snowlab_table=Bad-Name"
			if strings.HasPrefix(dsn, "postgres") {
				bad = "?snowlab_table=Bad-Name"
				if strings.Contains(dsn[strings.LastIndex(dsn, "/"):], "?") {
					bad = "&snowlab_table=Bad-Name"
				}
			}
			_, err = nodeid.OpenStore("pg:"+dsn+bad, extra)
			requireNoSecret(t, err, "OpenStore", marker)
			st, closeStore, err := Open(dsn, time.Second)
			if refused {
				requireNoSecret(t, err, "Open", marker)
				return
			}
			require.NoError(t, err)
			defer closeStore()
			_, err = st.Acquire(ctxT(t), snowlab.Layout{}, 1, 1023)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), marker, "Acquire with nothing listening")
		})
	}
}

// FuzzRedactPgx: whatever DSN pgx reads a password from, OpenStore's
// description of it with Opener's SafeParam never shows that password's
// marker, unless pgx itself reads the marker as something it shows (a
// host, user, database or parameter). The seeds, markedDSNs, run as a
// normal test.
func FuzzRedactPgx(f *testing.F) {
	for _, tc := range markedDSNs {
		f.Add(strings.NewReplacer("HOST", "127.0.0.1:5432", "H", "127.0.0.1", "P", "5432").Replace(tc.dsn))
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		red := described(t, dsn)
		cfg, err := pgconn.ParseConfig(dsn)
		if err != nil || !strings.Contains(cfg.Password, marker) {
			return
		}
		shown := cfg.Host + " " + cfg.User + " " + cfg.Database
		for k, v := range cfg.RuntimeParams {
			shown += " " + k + "=" + v
		}
		for _, fb := range cfg.Fallbacks {
			shown += " " + fb.Host
		}
		if strings.Contains(red, marker) && !strings.Contains(shown, marker) {
			t.Fatalf("Redact(%q) = %q shows the password %q", dsn, red, cfg.Password)
		}
	})
}
