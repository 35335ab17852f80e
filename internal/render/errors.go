package render

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Error is a render failure, placed as precisely as the cause allows.
type Error struct {
	Blueprint string
	// Template is "gateway/<name>", "httproute/<name>", "gateway/status" or "helpers".
	Template string
	// Line is the line in the template's source, 0 when the cause has none (such as
	// rendered output that is not valid YAML).
	Line    int
	Message string
	// Cause is the error behind Message when it came from elsewhere, such as the
	// cluster's API telling whether a kind is namespaced.
	Cause error
	// Output is the text the template rendered, when the error is about that text (it is
	// not valid YAML, or an object in it is refused), for the author to see: messages
	// name lines of it. It is not part of Error(), which goes into conditions.
	Output string
	// OutputLine is the line of Output the message names, 0 when it names none.
	OutputLine int
}

func (e *Error) Unwrap() error { return e.Cause }

func (e *Error) Error() string {
	place := "GatewayClassBlueprint " + e.Blueprint
	if e.Template != "" {
		place += ", template " + e.Template
	}
	if e.Line > 0 {
		place += ", line " + strconv.Itoa(e.Line)
	}
	return place + ": " + e.Message
}

// templateLocation matches the start of text/template errors:
// "template: NAME:LINE:COL: ..." (exec) or "template: NAME:LINE: ..." (parse).
var templateLocation = regexp.MustCompile(`^template: (.+?):(\d+)(?::\d+)?: (.*)$`)

// executingPrefix matches `executing "NAME" at <...>: ` in exec errors.
var executingPrefix = regexp.MustCompile(`^executing "[^"]*" at <.*?>: `)

// templateError turns a text/template error into an Error. The place is where the
// error surfaced in the template being rendered; the message keeps the inner places of
// nested includes, but for the messages of required and fail and of the render's limits.
func templateError(blueprint, template string, err error) *Error {
	e := locate(blueprint, template, err.Error())
	var author *authorError
	var limit *limitError
	switch {
	case errors.As(err, &author):
		e.Message = author.message
	case errors.As(err, &limit):
		e.Message, e.Cause = limit.message, limit
	}
	return e
}

func locate(blueprint, template, text string) *Error {
	e := &Error{Blueprint: blueprint, Template: template, Message: text}
	m := templateLocation.FindStringSubmatch(text)
	if m == nil {
		return e
	}
	e.Template = m[1]
	e.Line, _ = strconv.Atoi(m[2])
	e.Message = executingPrefix.ReplaceAllString(m[3], "")
	e.Message = strings.TrimPrefix(e.Message, "error calling ")
	return e
}

// outputLine matches the line that YAML parse errors name: "yaml: line 6: ..." and,
// for unmarshal errors, "line 6: ...".
var outputLine = regexp.MustCompile(`\bline (\d+):`)

// withOutput adds the rendered text to an Error about it.
func withOutput(err error, output string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Output = output
		if m := outputLine.FindStringSubmatch(e.Message); m != nil {
			e.OutputLine, _ = strconv.Atoi(m[1])
		}
	}
	return err
}

// objectError is an Error about one rendered object.
func objectError(blueprint, template string, kind, name, format string, args ...any) *Error {
	return &Error{Blueprint: blueprint, Template: template, Message: fmt.Sprintf("%s %q: ", kind, name) + fmt.Sprintf(format, args...)}
}
