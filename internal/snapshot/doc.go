// Package snapshot gathers, once and in one place, what the values and templates of a
// Gateway and of the HTTPRoutes on it are computed from (internal/translate's Gateway
// and Route): the class, the blueprint at the revision the Gateway runs and the
// policies, the attached routes, the listeners judged and the backendRefs resolved. Its
// Gatherer reads through a client.Reader, so that the controller (its cache), gatewright
// explain and diff (the API server) and the offline commands (objects read from files)
// see a Gateway the same way; its options say what those callers do differently.
package snapshot
