package snowlab_test

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestREADMELinksExist: every relative link of a Markdown document names a
// file or folder of the repository, and its #fragment a heading of the
// document it points to, so the README's map of topics leads somewhere.
func TestREADMELinksExist(t *testing.T) {
	docs := markdownDocs(t)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for from, text := range docs {
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target, frag, _ := strings.Cut(m[1], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			to := from
			if target != "" {
				to = path.Join(path.Dir(from), target)
				if _, err := os.Stat(to); err != nil {
					t.Errorf("%s links to %s, which does not exist", from, m[1])
					continue
				}
			}
			if frag == "" {
				continue
			}
			if _, ok := docs[to]; !ok {
				t.Errorf("%s links to %s: a fragment of a file that is no hand-written Markdown", from, m[1])
			} else if !headingSlugs(docs[to])[frag] {
				t.Errorf("%s links to %s: %s has no heading whose anchor is #%s", from, m[1], to, frag)
			}
		}
	}
}

// headingSlugs is the anchors GitHub gives a document's headings: lower
// case, spaces as hyphens, other punctuation dropped.
func headingSlugs(text string) map[string]bool {
	slugs := map[string]bool{}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#"))) {
			switch {
			case r == ' ' || r == '-':
				b.WriteRune('-')
			case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slugs[b.String()] = true
	}
	return slugs
}

// TestREADMEMakeTargetsExist: every make target a document names in code
// (a shell block or an inline `make X`) is one the Makefile defines.
func TestREADMEMakeTargetsExist(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9_-]*):`).FindAllStringSubmatch(string(makefile), -1) {
		targets[m[1]] = true
	}
	code := regexp.MustCompile("(?s)```sh\n.*?```|`[^`\n]+`")
	use := regexp.MustCompile("(?:^|[\\s(;&|`])make ([a-z][a-z0-9_-]*)")
	for from, text := range markdownDocs(t) {
		for _, c := range code.FindAllString(text, -1) {
			for _, m := range use.FindAllStringSubmatch(c, -1) {
				if !targets[m[1]] {
					t.Errorf("%s names make %s, which the Makefile does not define", from, m[1])
				}
			}
		}
	}
}

// TestREADMEWritesNoFlagTable: a table of a command's flags is the
// command's -h or nothing, since one written by hand drifts from the code
// (it did: loadgen's listed defaults it no longer had). A table row whose
// first cell is a flag is refused.
func TestREADMEWritesNoFlagTable(t *testing.T) {
	row := regexp.MustCompile("(?m)^\\| *`-[a-z]")
	for from, text := range markdownDocs(t) {
		if loc := row.FindStringIndex(text); loc != nil {
			line := strings.Count(text[:loc[0]], "\n") + 1
			t.Errorf("%s:%d is a table of flags: point to the command's -h instead", from, line)
		}
	}
}
