package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository, seen from this package's directory.
const root = ".."

// checkedPages is every Markdown page whose links must resolve: the README
// and CHANGELOG, docs/ (the generated CLI reference included), the
// component READMEs, and the benchmark results.
func checkedPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "CHANGELOG.md"}
	for _, glob := range []string{"processor/*/README.md", "extension/*/README.md", "distribution/README.md", "benchmarks/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		require.NoError(t, err)
		for _, p := range m {
			rel, err := filepath.Rel(root, p)
			require.NoError(t, err)
			pages = append(pages, filepath.ToSlash(rel))
		}
	}
	for _, dir := range []string{"docs", "benchmarks/results"} {
		require.NoError(t, filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".md") {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				pages = append(pages, filepath.ToSlash(rel))
			}
			return nil
		}))
	}
	return pages
}

// link is one link of a page, with its line.
type link struct {
	line   int
	target string
}

var (
	// inlineLink is [text](target) or ![alt](target), the target without
	// spaces, an optional "title" after it.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refDef is a reference definition: [label]: target.
	refDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	// codeSpan is inline code, whose brackets are not links.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	// heading is an ATX heading.
	heading = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	// htmlAnchor is an explicit anchor: <a name="x"> or id="x".
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
)

// scan reads a page's links and its anchors (GitHub's heading slugs, with
// -1, -2 for repeats, and explicit HTML anchors), outside fenced code.
func scan(path string) (links []link, anchors map[string]bool, err error) {
	f, err := os.Open(path) //nolint:gosec // a page of this repository
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	anchors = map[string]bool{}
	seen := map[string]int{}
	fence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			s := slug(m[2])
			if k := seen[s]; k > 0 {
				anchors[fmt.Sprintf("%s-%d", s, k)] = true
			} else {
				anchors[s] = true
			}
			seen[s]++
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			anchors[m[1]] = true
		}
		text := codeSpan.ReplaceAllString(line, "")
		if m := refDef.FindStringSubmatch(text); m != nil {
			links = append(links, link{n, m[1]})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			links = append(links, link{n, m[1]})
		}
	}
	return links, anchors, sc.Err()
}

var linkInHeading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's anchor for a heading: lower case, inline markup and
// punctuation other than '-' and '_' dropped, spaces as '-'.
func slug(h string) string {
	h = linkInHeading.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsLetter(r), unicode.IsNumber(r):
			// Letters and digits, é and ü included, stay; symbols
			// (→, ≤, emoji) go.
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isExternal(target string) bool {
	for _, p := range []string{"http://", "https://", "mailto:", "ftp://"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}

// TestLinks: every relative link of the checked pages names a file or
// directory that exists, and an #anchor into a Markdown page names one of
// its headings.
func TestLinks(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	anchors := func(page string) map[string]bool {
		if a, ok := anchorsOf[page]; ok {
			return a
		}
		_, a, err := scan(filepath.Join(root, page))
		require.NoError(t, err)
		anchorsOf[page] = a
		return a
	}

	pages := checkedPages(t)
	require.Contains(t, pages, "README.md")
	checked := 0
	for _, page := range pages {
		links, a, err := scan(filepath.Join(root, page))
		require.NoError(t, err, page)
		anchorsOf[page] = a
		for _, l := range links {
			if isExternal(l.target) {
				continue
			}
			checked++
			target, frag, _ := strings.Cut(l.target, "#")
			dest := page
			if target != "" {
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(page), target)))
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s:%d: %s leaves the repository", page, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, dest)); err != nil {
					t.Errorf("%s:%d: %s: %s does not exist", page, l.line, l.target, dest)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(dest, ".md") || strings.HasPrefix(frag, "L") && strings.Trim(frag[1:], "0123456789-L") == "" {
				continue
			}
			if !anchors(dest)[frag] {
				t.Errorf("%s:%d: %s: %s has no heading with the anchor #%s", page, l.line, l.target, dest, frag)
			}
		}
	}
	assert.Positive(t, checked, "no relative link found: the scanner reads nothing")
}

func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Set-up: two commands":                     "set-up-two-commands",
		"Shift left: `otelgov`":                    "shift-left-otelgov",
		"Weaver's report and `.weaver.toml`":       "weavers-report-and-weavertoml",
		"Profiles: `weaver` and `extended`":        "profiles-weaver-and-extended",
		"Deploy, infer, review, enforce":           "deploy-infer-review-enforce",
		"[Policies](policies.md) and the engine":   "policies-and-the-engine",
		"`GET /conformance[?service=NAME]`":        "get-conformanceservicename",
		"Diátaxis":                                 "diátaxis",
		"Migration: findings that changed (≤ 3 %)": "migration-findings-that-changed--3-",
		"otelcol_processor_governance_* on :8888":  "otelcol_processor_governance_-on-8888",
	} {
		assert.Equal(t, want, slug(h), h)
	}
}
