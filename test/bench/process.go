package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat: 100 on Linux.
const clockTicks = 100

// controllerProcess is the controller under measurement, a child process of the harness.
type controllerProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // why it exited; read after exited is closed
}

// startController starts command with the control plane's kubeconfig, its output
// going to logPath. It dies with the harness.
func startController(command []string, kubeconfig, logPath string) (*controllerProcess, error) {
	out, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		return nil, fmt.Errorf("starting %s: %w", command[0], err)
	}
	p := &controllerProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = out.Close()
		close(p.exited)
	}()
	return p, nil
}

// stop asks the controller to stop, and kills it if it has not within 10 s.
func (p *controllerProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// exitError says why the controller exited before it was stopped.
func (p *controllerProcess) exitError(logPath string) error {
	return fmt.Errorf("the controller exited: %v (its log: %s)", p.err, logPath)
}

// cpuSeconds is the user and system CPU time process pid has used.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name in parentheses may hold spaces; the fields after it are fixed:
	// state is field 3, utime field 14, stime field 15.
	_, rest, ok := strings.Cut(string(data), ") ")
	fields := strings.Fields(rest)
	if !ok || len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseUint(fields[11], 10, 64)
	stime, err2 := strconv.ParseUint(fields[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return float64(utime+stime) / clockTicks, nil
}

// peakRSS is the peak resident set size of process pid (VmHWM), in bytes.
func peakRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if value, ok := strings.CutPrefix(lines.Text(), "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
			return kib << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
}

// childProcess is the pid of the running child of this process whose command is name.
func childProcess(name string) (int, error) {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return 0, err
	}
	self := os.Getpid()
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue // it exited meanwhile
		}
		comm, rest, ok := strings.Cut(string(data), ") ")
		fields := strings.Fields(rest)
		if !ok || len(fields) < 2 || !strings.HasSuffix(comm, "("+name) {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == self && fields[0] != "Z" {
			return strconv.Atoi(filepath.Base(dir))
		}
	}
	return 0, fmt.Errorf("no %s process started by this one", name)
}

// freeAddress is a loopback address with a port nobody listens on now.
func freeAddress() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// machine describes the machine the harness runs on.
func machine() string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if value, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(value), ":"))
				break
			}
		}
	}
	memory := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if value, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
				memory = fmt.Sprintf(", %.1f GiB", float64(kib)/(1<<20))
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s)%s", runtime.NumCPU(), cpu, memory)
}
