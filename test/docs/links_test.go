package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/test/testenv"
)

var (
	fence   = regexp.MustCompile("(?ms)^```.*?^```")
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeRun = regexp.MustCompile("`[^`]*`")
)

// TestDocsLinksResolve: every relative link of the pages names a file of the repository,
// and its #anchor a heading of that page, as GitHub makes anchors of headings. A reader
// who follows "install.md#tenants-on-the-command-line" lands on that section, not at the
// top of the page.
func TestDocsLinksResolve(t *testing.T) {
	root := testenv.RepoRoot()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(root, "README.md"))
	anchors := map[string]map[string]bool{}
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		a := map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(prose(t, page), -1) {
			a[anchor(m[1])] = true
		}
		anchors[page] = a
		return a
	}
	checked := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		for _, m := range link.FindAllStringSubmatch(codeRun.ReplaceAllString(prose(t, page), ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, fragment, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: the link %s names no file of the repository", rel, target)
				continue
			}
			if fragment != "" && strings.HasSuffix(file, ".md") && !anchorsOf(file)[fragment] {
				t.Errorf("%s: the link %s names no heading of %s", rel, target, filepath.Base(file))
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d links; the walk has lost its way", checked)
	}
}

// prose is the page without its fenced blocks, whose "#" lines are comments, not headings.
func prose(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return fence.ReplaceAllString(string(data), "")
}

// anchor is the anchor GitHub gives a heading: lower case, punctuation but hyphens
// dropped, spaces made hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
