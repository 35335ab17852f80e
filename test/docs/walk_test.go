// Package docs_test walks the documentation as a reader would: every offline gatewright
// command a page shows, whose input files are in the repository, is run from the
// repository's root, and its output must be what the page shows. So the next drift of a
// message, a column or a value fails here, not in a reader's terminal. The live examples
// are walked too, on a control plane running the controller (live_walk_test.go).
package docs_test

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gatewright/gatewright/test/testenv"
)

// example is one command of a console block and the output the page shows for it.
type example struct {
	page    string
	line    int
	block   int // which console block of the page, from 0
	command string
	output  []string
	// files are the files the page shows before the command, by name: a YAML block that
	// says its name in a first comment line ("# team-defaults.yaml") or that the line
	// before names ("saved as `risky.yaml`:").
	files map[string]string
}

// offline are the commands that answer from files alone: a page may show them with
// their output verbatim.
var offline = regexp.MustCompile(`^gatewright (lint|values|render)\b|^gatewright (diff|explain request)\b.*--base\b`)

func TestDocsShowWhatOfflineCommandsPrint(t *testing.T) {
	root := testenv.RepoRoot()
	bin := buildGatewright(t, root)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, page := range append(pages, filepath.Join(root, "README.md")) {
		for _, ex := range examples(t, page) {
			if !offline.MatchString(ex.command) {
				continue
			}
			rel, _ := filepath.Rel(root, ex.page)
			dir := workspace(t, root, ex.files)
			if missing := missingInput(dir, ex.command); missing != "" {
				t.Logf("%s:%d: not run, its input %s is neither in the repository nor shown on the page: %s", rel, ex.line, missing, ex.command)
				continue
			}
			ran++
			t.Run(rel+":"+strings.Fields(ex.command)[1], func(t *testing.T) {
				cmd := exec.Command("sh", "-c", ex.command+" 2>&1")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
				out, _ := cmd.Output() // the page shows what it prints, whatever its exit status
				got := lines(string(out))
				if !matches(ex.output, got) {
					t.Errorf("%s:%d: $ %s\nthe page shows:\n%s\nit prints:\n%s", rel, ex.line, ex.command,
						strings.Join(ex.output, "\n"), strings.Join(got, "\n"))
				}
			})
		}
	}
	if ran < 10 {
		t.Errorf("ran %d examples of the docs; the walk has lost its way", ran)
	}
}

// built is cmd/gatewright, built once for every walk of the package: linking it takes
// longer than most walks.
var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildGatewright returns a folder holding cmd/gatewright, built from root, and
// kubectl-gatewright, kubectl's plugin, linked to it as make install links it.
func buildGatewright(t *testing.T, root string) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "gatewright-docs-"); built.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(built.dir, "gatewright"), "./cmd/gatewright")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building gatewright: %v\n%s", err, out)
			return
		}
		built.err = os.Symlink("gatewright", filepath.Join(built.dir, "kubectl-gatewright"))
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

// examples are the commands of page's console blocks, each with the output shown after it.
func examples(t *testing.T, page string) []example {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []example
	inConsole, block := false, -1
	var last *example // the command of this block whose output the lines are
	files := map[string]string{}
	var file *strings.Builder // the YAML block being read
	name, prose := "", ""     // the YAML block's name; the last line of prose
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		text := scanner.Text()
		switch {
		case file != nil && strings.HasPrefix(text, "```"):
			if name != "" {
				files[name] = file.String()
			}
			file = nil
		case file != nil:
			if file.Len() == 0 && name == "" {
				name = shownName.FindString(strings.TrimPrefix(text, "# "))
				if !strings.HasPrefix(text, "# ") {
					name = ""
				}
			}
			file.WriteString(text + "\n")
		case strings.HasPrefix(text, "```yaml"):
			file, name = &strings.Builder{}, ""
			if m := savedAs.FindStringSubmatch(prose); m != nil {
				name = m[1]
			}
		case strings.HasPrefix(text, "```console"):
			inConsole, last = true, nil
			block++
		case strings.HasPrefix(text, "```"):
			if last != nil {
				out = append(out, *last)
			}
			inConsole, last = false, nil
		case !inConsole:
			if strings.TrimSpace(text) != "" {
				prose = text
			}
		case strings.HasPrefix(text, "$ "):
			if last != nil {
				out = append(out, *last)
			}
			last = &example{page: page, line: n, block: block, command: withoutComment(strings.TrimPrefix(text, "$ ")), files: maps.Clone(files)}
		case last != nil:
			last.output = append(last.output, strings.TrimRight(text, " "))
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	shownName = regexp.MustCompile(`^[\w.-]+\.ya?ml$`)
	savedAs   = regexp.MustCompile("saved as `([\\w.-]+\\.ya?ml)`")
)

// workspace is where a command runs: the repository's root, or when the page showed
// files, a folder holding them beside links to everything at the root.
func workspace(t *testing.T, root string, files map[string]string) string {
	if len(files) == 0 {
		return root
	}
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		_ = os.Remove(path)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// withoutComment drops a trailing "# ..." that a page adds to say what a command shows.
func withoutComment(command string) string {
	if i := strings.Index(command, "  #"); i >= 0 {
		return strings.TrimSpace(command[:i])
	}
	return command
}

// missingInput is the first file a command reads (-f, --base) that is not in the
// repository, "" when all are.
func missingInput(root, command string) string {
	fields := strings.Fields(command)
	for i := 0; i+1 < len(fields); i++ {
		if fields[i] == "-f" || fields[i] == "--base" || fields[i] == "--filename" {
			if _, err := os.Stat(filepath.Join(root, fields[i+1])); err != nil {
				return fields[i+1]
			}
		}
	}
	return ""
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}

// matches tells whether got is what want shows, where a line "..." in want (indented or
// not) stands for any lines, none included, and "..." within a line for any text: a page
// may abridge.
func matches(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || len(got) == 1 && got[0] == ""
	}
	if strings.TrimSpace(want[0]) == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if matches(want[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(want[0], got[0]) && matches(want[1:], got[1:])
}

// lineMatches tells whether got is the line want shows, "..." in it standing for any text.
func lineMatches(want, got string) bool {
	if !strings.Contains(want, "...") {
		return want == got
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}
