package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
)

// phaseNotes say, after a phase, what it means for the Gateways.
var phaseNotes = map[gatewrightv1alpha1.RolloutPhase]string{
	gatewrightv1alpha1.RolloutProgressing: "the next wave starts once every Gateway of this one has been healthy for the soak",
	gatewrightv1alpha1.RolloutPaused:      "no wave starts and none is rolled back; resuming restarts the wave's gate",
	gatewrightv1alpha1.RolloutComplete:    "every Gateway runs it",
	gatewrightv1alpha1.RolloutRolledBack:  "its Gateways went back; the next change of the spec starts a new rollout",
}

// print writes the report as text: the blueprint's revisions and rollout as
// "Field: value" lines, then the history as a table.
func (r *rolloutReport) print(out io.Writer) error {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	line := func(field, format string, args ...any) {
		fmt.Fprintf(w, "%s:\t%s\n", field, fmt.Sprintf(format, args...))
	}
	line("Blueprint", "%s", r.Blueprint)
	line("Current revision", "%d", r.CurrentRevision)
	line("Target revision", "%d", r.TargetRevision)
	line("Gateways", "%d", r.Gateways)
	line("Settings", "%s", r.Settings.describe())
	if st := r.Rollout; st == nil {
		line("Rollout", "none yet (a blueprint's first revision is current at once)")
	} else {
		r.printRollout(line, st)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	b.WriteString("\nHistory:\n")
	if err := r.printHistory(&b); err != nil {
		return err
	}
	_, err := out.Write(b.Bytes())
	return err
}

func (r *rolloutReport) printRollout(line func(field, format string, args ...any), st *rolloutState) {
	line("Rollout", "revision %d from revision %d: %s (%s)", st.Revision, st.From, st.Phase, phaseNotes[st.Phase])
	if st.Phase != gatewrightv1alpha1.RolloutComplete && st.Phase != gatewrightv1alpha1.RolloutRolledBack {
		line("Wave", "%d of %d; %d of %d Gateways updated (wave sizes %s)",
			st.Wave+1, st.Waves, st.Updated, r.Gateways, joinInts(st.WaveSizes))
		if st.WaveStarted != nil {
			line("Wave started", "%s (%s ago)", timestamp(st.WaveStarted), r.since(st.WaveStarted))
		}
	}
	if st.DeadlineLeftSeconds != nil {
		line("Gate deadline", "%s left", seconds(*st.DeadlineLeftSeconds))
	}
	if f := st.Failure; f != nil {
		gateways := strings.Join(f.Gateways, ", ")
		if f.MoreGateways > 0 {
			gateways += fmt.Sprintf(" and %d more", f.MoreGateways)
		}
		if gateways == "" {
			gateways = "none named"
		}
		line("Failure", "revision %d, wave %d of %d; Gateways %s: %s", f.Revision, f.Wave+1, st.Waves, gateways, f.Message)
	}
}

func (r *rolloutReport) printHistory(out io.Writer) error {
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "REVISION\tGATEWAYS\tAGE\tCURRENT\tTARGET")
	for _, rev := range r.History {
		fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%s\n", rev.Revision, rev.Gateways, r.since(&rev.Created), mark(rev.Current), mark(rev.Target))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	// tabwriter pads the cells before an empty TARGET; the padding would end the lines.
	for _, row := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(out, strings.TrimRight(row, " ")); err != nil {
			return err
		}
	}
	return nil
}

// describe is the settings in one line.
func (s rolloutSettings) describe() string {
	parts := []string{string(s.Strategy) + " " + strings.Join(s.Waves, ", ")}
	if s.Strategy != gatewrightv1alpha1.RolloutAllAtOnce {
		parts = append(parts, "soak "+seconds(s.SoakSeconds))
	}
	parts = append(parts, "gate deadline "+seconds(s.GateDeadlineSeconds))
	if s.OrderNamespaceLabel != "" {
		parts = append(parts, "ordered by namespace label "+s.OrderNamespaceLabel)
	}
	if s.Paused {
		parts = append(parts, "paused")
	}
	if s.Held != "" {
		parts = append(parts, "held: "+s.Held)
	}
	return strings.Join(parts, "; ")
}

// since is how long before the report t was, as kubectl writes ages.
func (r *rolloutReport) since(t *metav1.Time) string {
	return duration.HumanDuration(r.now.Sub(t.Time))
}

func timestamp(t *metav1.Time) string {
	if t == nil {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

func seconds(n int64) string {
	return (time.Duration(n) * time.Second).String()
}

func mark(set bool) string {
	if set {
		return "*"
	}
	return ""
}

func joinInts(ns []int) string {
	if len(ns) == 0 {
		return "none: no Gateways"
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}
