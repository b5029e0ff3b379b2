package alternatives

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/snowlab/snowlab/lab/internal/resultdir"
)

// server is the PostgreSQL server the schemes ran on.
type server struct {
	Version    string `json:"version"`
	VersionNum int    `json:"version_num"`
	// Settings are the ones that decide what a commit costs (fsync,
	// synchronous_commit, wal_sync_method, commit_delay, ...) and
	// shared_buffers, as the server reported them.
	Settings map[string]string `json:"settings"`
	// DataDir is the server's data_directory; Local is whether it is on
	// this machine (a loopback or socket DSN and a folder this process can
	// see), which the commit-latency test and the crash experiment need.
	DataDir string `json:"data_dir,omitempty"`
	Local   bool   `json:"local"`
	// Schema is the schema the experiment's tables and sequences live in,
	// dropped afterwards.
	Schema string `json:"schema"`
}

// serverSettings are the settings recorded in Server.Settings.
var serverSettings = []string{"fsync", "synchronous_commit", "wal_sync_method", "shared_buffers",
	"commit_delay", "commit_siblings", "wal_writer_delay", "full_page_writes", "wal_level", "max_connections"}

// pgServer is a connection to the server for setting up and dropping
// the experiment's objects, and the factory of the clients' connections.
type pgServer struct {
	cfg    *pgx.ConnConfig
	conn   *pgx.Conn
	info   server
	schema string
}

// pgError is err with pgx's parse error, the one that quotes the DSN,
// rewritten to quote nothing of it (redact.Error).
func pgError(err error) error {
	if err == nil {
		return nil
	}
	return resultdir.RedactError(err)
}

func openServer(ctx context.Context, dsn string) (*pgServer, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgresql: %w", pgError(err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgresql: %w", pgError(err))
	}
	s := &pgServer{cfg: cfg, conn: conn, info: server{Settings: map[string]string{}}}
	if err := s.setup(ctx); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("postgresql: %w", pgError(err))
	}
	return s, nil
}

func (s *pgServer) setup(ctx context.Context) error {
	var num string
	if err := s.conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')").
		Scan(&s.info.Version, &num); err != nil {
		return err
	}
	s.info.VersionNum, _ = strconv.Atoi(num)
	for _, name := range serverSettings {
		var v string
		if err := s.conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err == nil {
			s.info.Settings[name] = v
		}
	}
	// data_directory needs a superuser or pg_read_all_settings; without it
	// the server counts as remote.
	_ = s.conn.QueryRow(ctx, "SELECT current_setting('data_directory')").Scan(&s.info.DataDir)
	s.info.Local = localHost(s.cfg.Host) && s.info.DataDir != "" && dirExists(s.info.DataDir)
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	s.schema = fmt.Sprintf("snowlab_alt_%d_%s", os.Getpid(), hex.EncodeToString(rnd[:]))
	s.info.Schema = s.schema
	if _, err := s.conn.Exec(ctx, "CREATE SCHEMA "+s.schema); err != nil {
		return err
	}
	_, err := s.conn.Exec(ctx, "SET search_path TO "+s.schema)
	return err
}

func localHost(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func dirExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// connect opens a client connection into the experiment's schema, with
// extra run-time parameters (synchronous_commit for the crash clients).
func (s *pgServer) connect(ctx context.Context, params map[string]string) (*pgx.Conn, error) {
	cfg := s.cfg.Copy()
	cfg.RuntimeParams = map[string]string{}
	for k, v := range s.cfg.RuntimeParams {
		cfg.RuntimeParams[k] = v
	}
	cfg.RuntimeParams["search_path"] = s.schema
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	return conn, pgError(err)
}

// reconnect replaces the setup connection (after a crash).
func (s *pgServer) reconnect(ctx context.Context) error {
	_ = s.conn.Close(ctx)
	conn, err := s.connect(ctx, nil)
	if err != nil {
		return err
	}
	s.conn = conn
	return nil
}

func (s *pgServer) exec(ctx context.Context, sql string, args ...any) error {
	_, err := s.conn.Exec(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", sql, pgError(err))
	}
	return nil
}

// prepare makes fresh objects for one run of a scheme with n clients:
// each run starts from an untouched row or sequence.
func (s *pgServer) prepare(ctx context.Context, sc schemeSpec, n int) error {
	switch sc.Kind {
	case ticket:
		return s.exec(ctx, "DROP TABLE IF EXISTS ticket; CREATE TABLE ticket (id int PRIMARY KEY, n bigint NOT NULL); INSERT INTO ticket VALUES (1, 0)")
	case sequence:
		return s.exec(ctx, fmt.Sprintf("DROP SEQUENCE IF EXISTS seq; CREATE SEQUENCE seq CACHE %d", sc.Size))
	case series:
		return s.exec(ctx, "DROP SEQUENCE IF EXISTS seq; CREATE SEQUENCE seq CACHE 1")
	case block:
		return s.exec(ctx, "DROP TABLE IF EXISTS alloc; CREATE TABLE alloc (tag text PRIMARY KEY, max_id bigint NOT NULL); INSERT INTO alloc VALUES ('ids', 0)")
	case stride:
		for i := 1; i <= n; i++ {
			if err := s.exec(ctx, fmt.Sprintf("DROP SEQUENCE IF EXISTS stride_%d; CREATE SEQUENCE stride_%d INCREMENT BY %d START WITH %d CACHE 1", i, i, n, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *pgServer) close() error {
	ctx := context.Background()
	err := s.exec(ctx, "DROP SCHEMA "+s.schema+" CASCADE")
	return errors.Join(err, s.conn.Close(ctx))
}
