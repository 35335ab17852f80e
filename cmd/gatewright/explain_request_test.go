package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/test/golden"
)

const requestWorld = "testdata/explain-request/cluster.yaml"

func TestExplainRequestCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		exit     int
		golden   string // under testdata/explain-request; "" when the output is not checked
		inStderr string
	}{
		{name: "a request a rule rewrites goes to its backend, changed by the rule's and the backend's filters",
			args: []string{"http://shop.example.com/api/cart?page=2", "-X", "POST", "-H", "X-Version: 2", "-H", "Cookie: a=b", "-H", "Accept: */*"}, golden: "rewrite.out"},
		{name: "a request is split between weighted backends",
			args: []string{"http://Shop.Example.com/", "--address", "203.0.113.7"}, golden: "weights.out"},
		{name: "an https request takes the HTTPS listener, and a redirect keeps the query",
			args: []string{"https://shop.example.com/old/x?y=1"}, golden: "redirect.out"},
		{name: "as JSON, a backend that does not exist answers 500",
			args: []string{"http://shop.example.com/gone", "--gateway", "team-a/web", "-o", "json"}, golden: "missing-backend.json.out"},
		{name: "as JSON, a request no listener takes answers 404 and names no route",
			args: []string{"http://shop.example.com:8080/", "--gateway", "team-a/web", "-o", "json"}, golden: "no-listener.json.out"},
		{name: "without a Gateway for the port, the flag that chooses one is named, exit 2",
			args: []string{"http://shop.example.com:8080/"}, exit: 2, inStderr: "name it with --gateway NAMESPACE/NAME or --address HOST"},
		{name: "an address no Gateway has is an error, exit 2",
			args: []string{"http://shop.example.com/", "--address", "192.0.2.1"}, exit: 2, inStderr: "no Gateway of a Gatewright class has the address 192.0.2.1"},
		{name: "a URL that is not http or https is an error, exit 2",
			args: []string{"ftp://shop.example.com/"}, exit: 2, inStderr: "the scheme must be http or https"},
		{name: "an unknown flag is an error, exit 2",
			args: []string{"http://x/", "--bogus"}, exit: 2, inStderr: "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			cmd := newRootCommand()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(append([]string{"explain", "request", "--base", requestWorld}, tt.args...))
			err := cmd.Execute()
			if got := exitCodeOf(err); got != tt.exit {
				t.Fatalf("exit %d (%v), want %d; stderr:\n%s", got, err, tt.exit, errOut.String())
			}
			if tt.golden != "" {
				golden.Check(t, filepath.Join("testdata", "explain-request", tt.golden), out.Bytes())
			}
			if !strings.Contains(errOut.String(), tt.inStderr) {
				t.Errorf("stderr %q does not say %q", errOut.String(), tt.inStderr)
			}
		})
	}
}
