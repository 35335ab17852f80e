package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	gatewrightv1alpha1 "github.com/gatewright/gatewright/apis/gatewright.dev/v1alpha1"
	"github.com/gatewright/gatewright/internal/scheme"
)

// rollout status --watch follows the newest revision's rollout to its end and exits as a
// pipeline gates on: 0 complete, 1 rolled back, 2 on an error or a timeout.
func TestRolloutStatusWatchExitsAsTheRolloutEnds(t *testing.T) {
	status := func(current, target int64, rollout string) string {
		return "metadata: {name: internet}\nstatus: {currentRevision: " + strconv.FormatInt(current, 10) + ", targetRevision: " + strconv.FormatInt(target, 10) + rollout + "}"
	}
	tests := []struct {
		name     string
		statuses []string // what each read of the blueprint finds; the last one stays
		want     int
		lines    []string
	}{
		{name: "a rollout that completes after two waves exits 0",
			statuses: []string{
				status(3, 4, ", rollout: {revision: 3, from: 2, phase: Complete}"),
				status(3, 4, ", rollout: {revision: 4, from: 3, phase: Progressing, wave: 1, updated: 1}"),
				status(4, 4, ", rollout: {revision: 4, from: 3, phase: Complete}"),
			},
			want:  watchComplete,
			lines: []string{"revision 4: current revision 3, its rollout not started", "revision 4: Progressing, wave 2 of 4, 1 of 0 Gateways updated", "revision 4: Complete on 0 Gateways"}},
		{name: "a rollout rolled back exits 1 and says why",
			statuses: []string{
				status(3, 4, ", rollout: {revision: 4, from: 3, phase: Progressing}"),
				status(3, 4, ", rollout: {revision: 4, from: 3, phase: RolledBack, failure: {revision: 4, wave: 0, message: a Gateway went unready}}"),
			},
			want:  watchRolledBack,
			lines: []string{"revision 4: RolledBack to revision 3: a Gateway went unready"}},
		{name: "a blueprint of one revision has nothing to roll out: exit 0", statuses: []string{status(1, 1, "")}, want: watchComplete},
		{name: "an older revision's complete rollout is no end for the newest: the timeout is exit 2",
			statuses: []string{status(3, 4, ", rollout: {revision: 3, from: 2, phase: Complete}")}, want: watchError},
	}
	rolloutWatchInterval = 5 * time.Millisecond
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			c := fake.NewClientBuilder().WithScheme(scheme.New()).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					bp, ok := obj.(*gatewrightv1alpha1.GatewayClassBlueprint)
					if !ok {
						return c.Get(ctx, key, obj, opts...)
					}
					*bp = *blueprintAt(t, tt.statuses[min(reads, len(tt.statuses)-1)])
					reads++
					return nil
				},
			}).Build()
			var out bytes.Buffer
			err := watchRollout(t.Context(), &out, c, "internet", 200*time.Millisecond)
			if got := exitCodeOrZero(err); got != tt.want {
				t.Fatalf("exit %d (%v), want %d; printed:\n%s", got, err, tt.want, out.String())
			}
			for _, line := range tt.lines {
				if !strings.Contains(out.String(), line+"\n") {
					t.Errorf("printed:\n%s\nwant a line %q", out.String(), line)
				}
			}
		})
	}
}

func exitCodeOrZero(err error) int {
	if err == nil {
		return 0
	}
	return exitCode(err)
}
