package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBtreeWritesResults(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runArgs("btree", "-q", "-rows", "3000", "-engines", "sqlite", "-keys", "snowlab,uuidv4", "-out", dir)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "UUIDv4 / bigint index size")
	for _, pattern := range []string{"*-btree.json", "*-btree.md", filepath.Join("*-btree", "index-size.svg"), filepath.Join("*-btree", "leaf-fill.svg")} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		assert.Len(t, m, 1, pattern)
	}
}

func TestBtreeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"btree", "-rows", "0"},
		{"btree", "-keys", "uuidv6"},
		{"btree", "-engines", "oracle"},
		{"btree", "-engines", "postgresql"}, // no -pg
		{"btree", "-batch", "20000"},
		{"btree", "extra"},
	} {
		code, _, errs := runArgs(args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.NotEmpty(t, errs, "%v says why", args)
	}
}
