package report

import (
	"html"
	"html/template"
	"strings"
)

// inlineHTML turns the Markdown inline markup the reports write into
// HTML: code spans, **strong**, *emphasis*, [text](#anchor) links,
// backslash escapes and the &lt; &gt; that md.Escape writes. Everything
// else is escaped, so the result is safe to put in a page. A link to
// anything but an anchor in the page or a relative path keeps its text and
// loses the link: the pages reference nothing outside themselves.
func inlineHTML(s string) template.HTML {
	var b strings.Builder
	var open []string // the tags open, innermost last
	toggle := func(tag string) {
		if n := len(open); n > 0 && open[n-1] == tag {
			open = open[:n-1]
			b.WriteString("</" + tag + ">")
			return
		}
		open = append(open, tag)
		b.WriteString("<" + tag + ">")
	}
	for i := 0; i < len(s); {
		rest := s[i:]
		switch {
		case rest[0] == '\\' && len(rest) > 1:
			b.WriteString(html.EscapeString(rest[1:2]))
			i += 2
		case rest[0] == '`':
			n := len(rest) - len(strings.TrimLeft(rest, "`"))
			fence := rest[:n]
			end := strings.Index(rest[n:], fence)
			if end < 0 {
				b.WriteString(html.EscapeString(fence))
				i += n
				continue
			}
			code := rest[n : n+end]
			if len(code) > 1 && code[0] == ' ' && code[len(code)-1] == ' ' {
				code = code[1 : len(code)-1]
			}
			b.WriteString("<code>" + html.EscapeString(code) + "</code>")
			i += 2*n + end
		case strings.HasPrefix(rest, "**"):
			toggle("strong")
			i += 2
		case rest[0] == '*':
			toggle("em")
			i++
		case rest[0] == '[':
			mid := strings.Index(rest, "](")
			end := strings.IndexByte(rest, ')')
			if mid < 0 || end < mid {
				b.WriteString("[")
				i++
				continue
			}
			text, href := inlineHTML(rest[1:mid]), rest[mid+2:end]
			if localLink(href) {
				b.WriteString(`<a href="` + html.EscapeString(href) + `">` + string(text) + "</a>")
			} else {
				b.WriteString(string(text))
			}
			i += end + 1
		case strings.HasPrefix(rest, "&lt;"), strings.HasPrefix(rest, "&gt;"):
			b.WriteString(rest[:4])
			i += 4
		default:
			b.WriteString(html.EscapeString(rest[:1]))
			i++
		}
	}
	for n := len(open) - 1; n >= 0; n-- {
		b.WriteString("</" + open[n] + ">")
	}
	return template.HTML(b.String())
}

// localLink reports whether href points into the page or at a file beside
// it, never at another host.
func localLink(href string) bool {
	return href != "" && !strings.Contains(href, ":") && !strings.HasPrefix(href, "//")
}
