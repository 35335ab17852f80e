package hostile

import (
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/gatewright/gatewright/controllers"
)

// generationsBlueprint renders 20 ConfigMaps whose names carry a tenant's value, so that
// changing the value replaces every object.
const generationsBlueprint = `
values:
  default: {generation: g1}
gatewayTemplate:
  resourceTemplates:
  - name: parts
    template: |
      {{- range $i := until 20 }}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: {{ printf "%s-%s-%02d" $.Gateway.metadata.name $.Values.generation $i }}}
      {{- end }}
`

// partNames are the names generationsBlueprint renders for Gateway web.
func partNames(generation string) []string {
	var names []string
	for i := range 20 {
		names = append(names, fmt.Sprintf("web-%s-%02d", generation, i))
	}
	return names
}

// These specs stop the suite's Gatewright instance and start another one.
var _ = Describe("The controller process", func() {
	It("leaves no orphans when it dies in the middle of a change and the output changes again while it is down", func(ctx SpecContext) {
		class := newClass(ctx, generationsBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web")
		rendered := renderedFor(ctx, alice.namespace, alice.namespace, "web")
		Eventually(rendered).Should(Equal(partNames("g1")))

		alice.configure(ctx, "Gateway", "web", map[string]any{"generation": "g2"})
		Eventually(rendered).WithPolling(5 * time.Millisecond).Should(ContainElement(HavePrefix("web-g2-")))
		gatewright.kill()
		alice.configure(ctx, "Gateway", "web", map[string]any{"generation": "g3"})
		gatewright = startController(nil)

		Eventually(rendered).WithTimeout(30 * time.Second).Should(Equal(partNames("g3")))
		alice.programmed(ctx, "web")
		Consistently(rendered).Should(Equal(partNames("g3")))
	})

	It("fails over to a standby replica when the leader dies", func(ctx SpecContext) {
		alice := newTenant(ctx, "alice", "team-a")
		gatewright.kill()
		electing := func(o *ctrl.Options) {
			o.LeaderElection = true
			o.LeaderElectionID = controllers.Options{}.LeaderElectionID()
			o.LeaderElectionNamespace = controllerNamespace
			// Short enough for a test, long enough that a busy machine's slow lease
			// requests do not cost the new leader its lease.
			o.LeaseDuration = ptr.To(6 * time.Second)
			o.RenewDeadline = ptr.To(4 * time.Second)
			o.RetryPeriod = ptr.To(time.Second)
		}
		replicas := []*controllerInstance{startController(electing), startController(electing)}
		DeferCleanup(func() {
			for _, replica := range replicas {
				replica.kill()
			}
			gatewright = startController(nil)
		})
		class := newClass(ctx, greetingBlueprint)
		alice.gateway(ctx, class, "web-1")
		alice.programmed(ctx, "web-1")

		leader := -1
		Eventually(func() int {
			for i, replica := range replicas {
				select {
				case <-replica.manager.Elected():
					leader = i
				default:
				}
			}
			return leader
		}).Should(BeNumerically(">=", 0))
		replicas[leader].kill()

		alice.gateway(ctx, class, "web-2")
		Eventually(alice.condition(ctx, "web-2", "Programmed")).WithTimeout(60 * time.Second).Should(HavePrefix("True/Programmed"))
	})

	It("recovers when the API server restarts", func(ctx SpecContext) {
		class := newClass(ctx, greetingBlueprint)
		alice := newTenant(ctx, "alice", "team-a")
		alice.gateway(ctx, class, "web-1")
		alice.programmed(ctx, "web-1")

		apiServer := env.ControlPlane.GetAPIServer()
		// It stops gracefully, or is killed when that takes longer than
		// apiServerStopTimeout: a crash is a restart too.
		if err := apiServer.Stop(); err != nil {
			Expect(err).To(MatchError(ContainSubstring("timeout waiting for process kube-apiserver to stop")))
		}
		Expect(apiServer.Start()).To(Succeed())

		alice.gateway(ctx, class, "web-2")
		Eventually(alice.condition(ctx, "web-2", "Programmed")).WithTimeout(time.Minute).Should(HavePrefix("True/Programmed"))
		config, err := alice.configMap(ctx, "web-1-config")()
		Expect(err).NotTo(HaveOccurred())
		config.Data["greeting"] = strings.ToUpper(config.Data["greeting"])
		Expect(alice.Update(ctx, config)).To(Succeed())
		Eventually(alice.configMap(ctx, "web-1-config")).Should(HaveField("Data", HaveKeyWithValue("greeting", "hello")))
	})
})
