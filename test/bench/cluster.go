package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/gatewright/gatewright/config/crd"
	"github.com/gatewright/gatewright/internal/controlplane"
)

// cluster is the fresh local control plane of one run, whose audit log holds the
// requests of one user: the controller's.
type cluster struct {
	env       *envtest.Environment
	adminCfg  *rest.Config
	admin     client.Client
	auditPath string
	// apiServer is the kube-apiserver's pid.
	apiServer int
	// debugSocket is the API server's unauthenticated profiling socket, if it has one.
	debugSocket string
}

// startCluster starts a control plane from the binaries in binDir, keeping its audit log
// of user in dir, and serving profiles on a socket in dir when profiled.
func startCluster(dir, binDir, user string, profiled bool) (_ *cluster, err error) {
	crds, err := crd.All()
	if err != nil {
		return nil, fmt.Errorf("reading the built-in CRDs: %w", err)
	}
	env := controlplane.New(binDir, crds)
	// Past this, a stopping API server is killed rather than waited for: the run is over.
	env.ControlPlaneStopTimeout = 10 * time.Second
	c := &cluster{env: env}
	if c.auditPath, err = controlplane.EnableAuditLog(env, dir, user); err != nil {
		return nil, err
	}
	env.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", serviceIPRange)
	if profiled {
		c.debugSocket = filepath.Join(dir, "apiserver.sock")
		env.ControlPlane.GetAPIServer().Configure().Set("debug-socket-path", c.debugSocket)
	}
	if c.adminCfg, err = env.Start(); err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	defer func() {
		if err != nil {
			_ = env.Stop()
		}
	}()
	if c.apiServer, err = childProcess("kube-apiserver"); err != nil {
		return nil, err
	}
	if c.admin, err = client.New(c.adminCfg, client.Options{Scheme: env.Scheme}); err != nil {
		return nil, err
	}
	return c, nil
}

// kubeconfig writes into dir a kubeconfig for user, authenticated by a client
// certificate of the control plane.
func (c *cluster) kubeconfig(dir, user string, groups []string) (string, error) {
	authenticated, err := c.env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return "", err
	}
	data, err := authenticated.KubeConfig()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}
