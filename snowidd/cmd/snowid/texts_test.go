package main

import (
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/snowlab/snowlab/nodeid"
	"github.com/snowlab/snowlab/snowidd/internal/snowidcli"
	"github.com/snowlab/snowlab/snowidd/leasespec"
)

// text is one text that names snowid's lease specs or commands, and what
// it must name.
type text struct {
	name     string
	body     string
	schemes  bool // names every lease spec, by its form
	commands bool // has every command's synopsis line
	stores   bool // names every store leasespec describes, by its name in prose
	// notStores: names none of them (for a list of stores this
	// repository does not ship).
	notStores bool
}

// snowidTexts are the texts this build of snowid is described by: the
// package doc and README.md's opening, written by hand, and the usage
// and gen's -h, written from leases.
func snowidTexts(t *testing.T, leases snowidcli.Leases) []text {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	help := func(args ...string) string {
		var out, errs bytes.Buffer
		require.Zero(t, snowidcli.RunLeases(args, &out, &errs, leases), errs.String())
		return out.String() + errs.String()
	}
	texts := []text{
		{name: "the package doc (main.go)", body: f.Doc.Text(), schemes: true, commands: true},
		{name: "snowid help", body: help("help"), schemes: true, commands: true},
		{name: "snowid gen -h", body: help("gen", "-h"), schemes: true},
	}
	// README.md's opening paragraph and nodeid's package doc, in a
	// checkout (a module download of snowidd holds neither).
	if b, ok := repoFile(t, "README.md"); ok {
		texts = append(texts, text{name: "README.md's opening paragraph", body: opening(string(b)), stores: true})
	}
	if b, ok := repoFile(t, "nodeid/doc.go"); ok {
		f, err := parser.ParseFile(token.NewFileSet(), "doc.go", b, parser.ParseComments|parser.PackageClauseOnly)
		require.NoError(t, err)
		doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
		texts = append(texts, text{name: "nodeid's package doc", body: doc, stores: true})
		// A store this repository ships is not one "of your own".
		own, _, _ := strings.Cut(doc[strings.Index(doc, "A Store of your own ("):], ")")
		texts = append(texts, text{name: "nodeid's \"A Store of your own\"", body: own, notStores: true})
	}
	return texts
}

// repoFile reads the file at path from the repository's root, three
// folders up; ok is false outside a checkout.
func repoFile(t *testing.T, path string) (b []byte, ok bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(path)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	require.NoError(t, err)
	return b, true
}

// opening is a Markdown document's first paragraph after its title,
// joined into one line.
func opening(md string) string {
	for _, p := range strings.Split(md, "\n\n") {
		if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, "#") {
			return strings.Join(strings.Fields(p), " ")
		}
	}
	return ""
}

// missing lists what each text fails to name of schemes and commands.
func missing(texts []text, schemes []leasespec.Scheme, commands []snowidcli.Command) []string {
	var out []string
	for _, tx := range texts {
		lines := map[string]bool{}
		for _, l := range strings.Split(tx.body, "\n") {
			lines[strings.TrimSpace(l)] = true
		}
		for _, s := range schemes {
			if tx.schemes && !strings.Contains(tx.body, s.Form) {
				out = append(out, tx.name+" lacks the lease spec "+s.Form)
			}
			if tx.stores && s.Store != "" && !strings.Contains(tx.body, s.Store) {
				out = append(out, tx.name+" lacks the store "+s.Store)
			}
			if tx.notStores && s.Store != "" && strings.Contains(tx.body, s.Store) {
				out = append(out, tx.name+" names "+s.Store+", a store shipped here")
			}
		}
		for _, c := range commands {
			if tx.commands && !lines[c.Line()] {
				out = append(out, tx.name+" lacks the line "+c.Line())
			}
		}
	}
	return out
}

// TestTextsNameEverySchemeAndCommand: every text that lists snowid's
// lease specs names each one this build registers (dir:, static: and
// every opener main passes, as leasespec describes it), every text that
// lists its commands has each command's line as the command table gives
// it, and README.md's opening and nodeid's package doc name every store
// (nodeid's doc called ZooKeeper and Kubernetes stores "of your own").
func TestTextsNameEverySchemeAndCommand(t *testing.T) {
	l := leases(noEnv)
	for name := range l.Stores {
		_, ok := leasespec.Lookup(name)
		assert.True(t, ok, "the scheme %q is registered but leasespec does not describe it", name)
	}
	for _, m := range missing(snowidTexts(t, l), l.Schemes(), snowidcli.Commands()) {
		t.Error(m)
	}
}

// TestTextsCatchAPlant proves the check above can fail: a scheme planted
// among the openers (with a description in leasespec's form) and a
// command planted in the table are reported missing from every text
// written by hand, and from none written from the openers.
func TestTextsCatchAPlant(t *testing.T) {
	l := leases(noEnv)
	l.Stores["plant"] = nodeid.OpenerFunc(func(string) (nodeid.Store, error) { return nil, errors.New("planted") })
	planted := leasespec.Scheme{Name: "plant", Form: "plant:…", Store: "Plantstore"}
	plantedCmd := snowidcli.Command{Name: "frob", Synopsis: "[-x]"}
	schemes := l.Schemes()
	for i := range schemes {
		if schemes[i].Name == planted.Name {
			schemes[i] = planted // as leasespec would describe it
		}
	}
	got := missing(snowidTexts(t, l), schemes, append(snowidcli.Commands(), plantedCmd))
	want := []string{
		"the package doc (main.go) lacks the lease spec plant:…",
		"the package doc (main.go) lacks the line snowid frob [-x]",
		"snowid help lacks the line snowid frob [-x]", // the table is planted here, not in the command
	}
	if _, ok := repoFile(t, "README.md"); ok {
		want = append(want, "README.md's opening paragraph lacks the store Plantstore",
			"nodeid's package doc lacks the store Plantstore")
	}
	assert.ElementsMatch(t, want, got)
}
