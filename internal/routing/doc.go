// Package routing computes a Gateway's route table: the Gateway API's routing rules
// (listeners and the routes attached to them, hostname intersection, match precedence,
// normalized filters, backends with weights and whether they resolve) applied once, in
// Go, so that templates print the table instead of deriving routing themselves, and
// `gatewright explain request` answers from the very table the templates print. It is
// plain Go: what it reads is handed to it.
package routing
