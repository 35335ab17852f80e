package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// request is one request of the audit log, as the API server saw it.
type request struct {
	received  time.Time
	verb      string // get, list, watch, create, update, patch, delete, deletecollection
	resource  string // "configmaps", "gateways/status"; empty for discovery and other paths
	namespace string // of the object; empty for cluster-scoped ones
	dryRun    bool
	failed    bool // answered with a 4xx or 5xx code
}

// auditEvent is the part of an audit.k8s.io/v1 Event the harness reads.
type auditEvent struct {
	AuditID                  string    `json:"auditID"`
	Stage                    string    `json:"stage"`
	Verb                     string    `json:"verb"`
	RequestURI               string    `json:"requestURI"`
	RequestReceivedTimestamp time.Time `json:"requestReceivedTimestamp"`
	ObjectRef                *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// auditLog follows the API server's audit log as it grows. The policy
// (controlplane.EnableAuditLog) logs only the controller's user, so every request in it
// is the controller's. Each request counts once: a watch when its response starts, any
// other request when it completes.
type auditLog struct {
	path string

	mu       sync.Mutex
	offset   int64
	partial  []byte
	requests []request
	// lastActivity is when the newest request other than a watch was received.
	lastActivity time.Time
}

// read adds the requests logged since the last read.
func (l *auditLog) read() error {
	f, err := os.Open(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // nothing logged yet
	}
	if err != nil {
		return err
	}
	defer f.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	l.offset += int64(len(data))
	data = append(l.partial, data...)
	end := bytes.LastIndexByte(data, '\n') + 1
	l.partial = append([]byte(nil), data[end:]...)
	lines := bufio.NewScanner(bytes.NewReader(data[:end]))
	lines.Buffer(nil, 4<<20)
	for lines.Scan() {
		var event auditEvent
		if err := json.Unmarshal(lines.Bytes(), &event); err != nil {
			return fmt.Errorf("%s: %w", l.path, err)
		}
		if r, ok := countedRequest(event); ok {
			l.requests = append(l.requests, r)
			if r.verb != "watch" && r.received.After(l.lastActivity) {
				l.lastActivity = r.received
			}
		}
	}
	return lines.Err()
}

// countedRequest is the request an event stands for, if this event is the one it is
// counted at.
func countedRequest(event auditEvent) (request, bool) {
	switch {
	case event.Verb == "watch" && event.Stage != "ResponseStarted":
		return request{}, false
	case event.Verb != "watch" && event.Stage != "ResponseComplete" && event.Stage != "Panic":
		return request{}, false
	}
	r := request{
		received: event.RequestReceivedTimestamp,
		verb:     event.Verb,
		dryRun:   strings.Contains(event.RequestURI, "dryRun=All"),
		failed:   event.Stage == "Panic" || (event.ResponseStatus != nil && event.ResponseStatus.Code >= 400),
	}
	if ref := event.ObjectRef; ref != nil {
		r.resource, r.namespace = ref.Resource, ref.Namespace
		if ref.Subresource != "" {
			r.resource += "/" + ref.Subresource
		}
	}
	return r, true
}

// activity returns how many requests were read so far and when the newest one other
// than a watch was received.
func (l *auditLog) activity() (int, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.requests), l.lastActivity
}

// tally counts the requests received in [from, to).
func (l *auditLog) tally(from, to time.Time) tally {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := tally{ByKind: map[string]int{}, WritesByNamespace: map[string]int{}}
	for _, r := range l.requests {
		if r.received.Before(from) || !r.received.Before(to) {
			continue
		}
		t.add(r)
	}
	return t
}

// tally is what the controller asked the API server for in a window.
type tally struct {
	Requests  int `json:"requests"`
	Writes    int `json:"writes"` // create, update, patch, delete, deletecollection; no dry runs
	Status    int `json:"statusWrites"`
	Events    int `json:"eventWrites"`
	Gets      int `json:"gets"`
	Lists     int `json:"lists"`
	Watches   int `json:"watches"`
	DryRuns   int `json:"dryRuns"`
	Discovery int `json:"discovery"` // requests for paths that are not resources: /api, /apis/...
	Failed    int `json:"failed"`
	// ByKind counts requests by "verb resource", dry runs as "dry-run <verb> resource".
	ByKind map[string]int `json:"byKind"`
	// WritesByNamespace counts the writes by the namespace of their object, "" for
	// cluster-scoped objects.
	WritesByNamespace map[string]int `json:"writesByNamespace"`
}

func (t *tally) add(r request) {
	t.Requests++
	if r.failed {
		t.Failed++
	}
	if r.resource == "" {
		t.Discovery++
		t.ByKind["get (discovery)"]++
		return
	}
	kind := r.verb + " " + r.resource
	switch r.verb {
	case "get":
		t.Gets++
	case "list":
		t.Lists++
	case "watch":
		t.Watches++
	default:
		if r.dryRun {
			t.DryRuns++
			kind = "dry-run " + kind
			break
		}
		t.Writes++
		t.WritesByNamespace[r.namespace]++
		if strings.HasSuffix(r.resource, "/status") {
			t.Status++
		}
		if r.resource == "events" {
			t.Events++
		}
	}
	t.ByKind[kind]++
}

// kinds returns the keys of ByKind of every tally, most requests first.
func kinds(tallies ...tally) []string {
	total := map[string]int{}
	for _, t := range tallies {
		for kind, n := range t.ByKind {
			total[kind] += n
		}
	}
	out := make([]string, 0, len(total))
	for kind := range total {
		out = append(out, kind)
	}
	sort.Slice(out, func(i, j int) bool {
		if total[out[i]] != total[out[j]] {
			return total[out[i]] > total[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
