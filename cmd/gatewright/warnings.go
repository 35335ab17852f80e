package main

import (
	"fmt"
	"io"
)

// printWarnings prints each warning about an object (such as "Gateway team-a/web") on
// errOut, and returns how many there were.
func printWarnings(errOut io.Writer, about string, warnings []string) int {
	for _, w := range warnings {
		fmt.Fprintf(errOut, "warning: %s: %s\n", about, w)
	}
	return len(warnings)
}

// strictError is the error of a command run with --strict that printed warnings.
func strictError(strict bool, warnings int) error {
	if !strict || warnings == 0 {
		return nil
	}
	return fmt.Errorf("%d warning(s), and --strict is set", warnings)
}
