package docs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gatewright/gatewright/test/testenv"
)

// blockShowing is the page's console block whose first command starts with command (the
// one numbered block, when given): its examples in order, with the files the page showed
// before it.
func blockShowing(t *testing.T, page, command string, block ...int) []example {
	t.Helper()
	all := examples(t, page)
	for i, ex := range all {
		if len(block) > 0 && ex.block != block[0] {
			continue
		}
		if strings.HasPrefix(ex.command, command) && (i == 0 || all[i-1].block != ex.block) {
			var block []example
			for _, e := range all[i:] {
				if e.block != ex.block {
					break
				}
				block = append(block, e)
			}
			return block
		}
	}
	t.Fatalf("%s has no console block starting with `%s`: the live walk has lost its way", page, command)
	return nil
}

// blockAfter is the page's first console block after the prose that contains lead.
func blockAfter(t *testing.T, page, lead string) []example {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	before, _, found := strings.Cut(string(data), lead)
	if !found {
		t.Fatalf("%s does not say %q: the live walk has lost its way", page, lead)
	}
	at := strings.Count(before, "\n") + 1
	for _, ex := range examples(t, page) {
		if ex.line > at {
			return blockShowing(t, page, ex.command, ex.block)
		}
	}
	t.Fatalf("%s shows no console block after %q", page, lead)
	return nil
}

// replay runs a console block's commands in order, as a reader types them, in a folder
// holding the files the page showed before it, with kubeconfig: each must print what the
// page shows (retried until the controller settles), a command shown without output must
// not fail (exit 0, or 1 for a diff that finds changes), and `echo $?` must print the
// exit status of the command before it.
func replay(t *testing.T, bin, kubeconfig string, block []example) {
	t.Helper()
	dir := workspace(t, testenv.RepoRoot(), block[0].files)
	status := 0
	for _, ex := range block {
		rel := filepath.Base(ex.page) + ":" + strconv.Itoa(ex.line)
		switch {
		case ex.command == "echo $?":
			if want := strings.Join(ex.output, "\n"); want != strconv.Itoa(status) {
				t.Errorf("%s: the page says the command before exits %s, it exits %d", rel, want, status)
			}
		case len(ex.output) == 0:
			var got []string
			got, status = runIn(t, bin, kubeconfig, dir, ex.command)
			if status > 1 || status == 1 && !strings.Contains(ex.command, " diff ") {
				t.Errorf("%s: $ %s\nexits %d:\n%s", rel, ex.command, status, strings.Join(got, "\n"))
			}
		default:
			same := matches
			if strings.HasPrefix(ex.command, "kubectl get ") && !strings.Contains(ex.command, " -o ") {
				same = sameTable
			}
			NewWithT(t).Eventually(func() string {
				var got []string
				got, status = runIn(t, bin, kubeconfig, dir, ex.command)
				if same(ex.output, got) {
					return ""
				}
				return fmt.Sprintf("%s: $ %s\nthe page shows:\n%s\nit prints:\n%s", rel, ex.command,
					strings.Join(ex.output, "\n"), strings.Join(got, "\n"))
			}, settle, time.Second).Should(BeEmpty())
		}
	}
}

// sameTable tells whether got is the table kubectl get prints that want shows: the same
// columns and rows, each cut at its own header's columns, the AGE column left out.
func sameTable(want, got []string) bool {
	w, g := tableCells(want), tableCells(got)
	if len(w) == 0 || len(w) != len(g) || !slices.Equal(w[0], g[0]) {
		return false
	}
	for r := 1; r < len(w); r++ {
		for i, header := range w[0] {
			if header != "AGE" && (i >= len(w[r]) || i >= len(g[r]) || w[r][i] != g[r][i]) {
				return false
			}
		}
	}
	return true
}

// tableCells is a table of kubectl get, header first, cut at the header's columns.
func tableCells(table []string) [][]string {
	if len(table) == 0 {
		return nil
	}
	bounds := columnGap.FindAllStringIndex(table[0], -1)
	var cells [][]string
	for _, line := range table {
		var row []string
		for i, b := range bounds {
			end := len(line)
			if i+1 < len(bounds) {
				end = min(bounds[i+1][0], len(line))
			}
			row = append(row, strings.TrimSpace(line[min(b[0], len(line)):end]))
		}
		cells = append(cells, row)
	}
	return cells
}

// run runs a page's command with the built gatewright, against the live cluster.
func run(t *testing.T, bin, kubeconfig, command string) []string {
	t.Helper()
	out, _ := runIn(t, bin, kubeconfig, "", command)
	return out
}

// runIn runs a page's command in dir with the built gatewright (and kubectl-gatewright,
// the plugin) first on the PATH, against kubeconfig; it returns what the command prints,
// stderr included, and its exit status.
func runIn(t *testing.T, bin, kubeconfig, dir, command string) ([]string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command+" 2>&1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "KUBECONFIG="+kubeconfig)
	out, err := cmd.Output() // the page shows what it prints, whatever its exit status
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("$ %s: %v", command, err)
	}
	return lines(string(out)), cmd.ProcessState.ExitCode()
}

// kubeconfigAs is a kubeconfig of the live cluster that impersonates user in groups, as
// a tenant's own kubeconfig would act as them.
func (c *liveCluster) kubeconfigAs(t *testing.T, user string, groups ...string) string {
	t.Helper()
	config, err := clientcmd.LoadFromFile(c.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range config.AuthInfos {
		auth.Impersonate, auth.ImpersonateGroups = user, groups
	}
	path := filepath.Join(t.TempDir(), user+".kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// shellAfter is the commands of the first sh block of the page after the prose that
// contains lead, comments left out.
func shellAfter(t *testing.T, page, lead string) []string {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(string(data), lead)
	if !found {
		t.Fatalf("%s does not say %q: the live walk has lost its way", page, lead)
	}
	_, block, found := strings.Cut(rest, "```sh\n")
	if !found {
		t.Fatalf("%s shows no sh block after %q", page, lead)
	}
	block, _, _ = strings.Cut(block, "```")
	var commands []string
	for _, l := range strings.Split(block, "\n") {
		if l = withoutComment(l); l != "" && !strings.HasPrefix(l, "#") {
			commands = append(commands, l)
		}
	}
	return commands
}

// sh runs a command of a page's sh block, which must succeed.
func (c *liveCluster) sh(t *testing.T, bin, command string) {
	t.Helper()
	if out, status := runIn(t, bin, c.kubeconfig, "", command); status != 0 {
		t.Fatalf("$ %s\nexits %d:\n%s", command, status, strings.Join(out, "\n"))
	}
}
