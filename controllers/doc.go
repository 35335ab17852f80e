// Package controllers holds the reconcilers: thin glue that reads the world, runs
// internal/values, internal/render and internal/apply, and writes status. One file per
// reconciler.
package controllers
