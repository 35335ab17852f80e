// Package snapshot gathers, in one place, what the values and templates of a Gateway
// and of the HTTPRoutes on it are computed from. It reads through a client.Reader, so
// that the controller (its cache), gatewright explain (the API server) and the offline
// commands (objects read from files) see a Gateway the same way.
package snapshot
