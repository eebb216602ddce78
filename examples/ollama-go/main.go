// An Ollama /api/chat strategy in Go, served to the conformance suite through the bridge
// (docs/bridge.md): the behaviour of examples/ollama/ollama_strategy.py and
// examples/ollama-js/ollama_strategy.mjs, written with Go's standard library alone, to show
// that a compiled language passes the suite too.
//
// The wire is NDJSON: one object per line, {"model", "created_at", "message": {...},
// "done": false}, and a last one with "done": true, done_reason and timings. A call arrives
// whole in one line, its arguments an object. An error during the stream arrives as a line
// {"error": "..."}.
//
// The native message is the WHOLE stream=false body, not its inner message: only the body
// says (done, done_reason) whether the turn finished. The server folds its own chunks into
// that body (server/routes.go writeChatResponse), and so does accumulate: every field is the
// last chunk's, except message.content and message.thinking (the pieces joined, grown in a
// strings.Builder so that feeding stays linear) and message.tool_calls and logprobs (every
// chunk's list EXTENDED: calls have no key to merge on, so two equal calls are two calls).
//
// Error texts are worded as the Python example words them (pyDescribe), so that the three
// examples' golden snapshots are one.
//
// This file is the strategy; bridge.go speaks protocol 1 for it (the handshake, errors as
// data, cpu_time, and text that is not valid Unicode in the wtf8-marked form).
//
// Build and run (README.md):
//
//	go build -o ollama-peer . && pytest --mcs-strategy="exec:./ollama-peer" --mcs-corpus=../ollama/corpus --mcs-only
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Object and Array are the shapes encoding/json decodes into (numbers as json.Number).
type Object = map[string]any
type Array = []any

// stream is one accumulator: the body so far, kept in parts that make the fold cheap.
type stream struct {
	started, done bool
	top           Object                      // the last chunk's fields, but message and logprobs
	fixed         Object                      // the last chunk's message fields, but the joined and extended ones
	text          map[string]*strings.Builder // content and thinking, every piece joined
	calls         Array                       // every chunk's tool_calls, extended
	logprobs      Array                       // every chunk's logprobs, extended
}

// message is the native message so far, the body (nil before the stream's first chunk).
func (s *stream) message() any {
	if !s.started {
		return nil
	}
	body := Object{}
	for k, v := range s.top {
		body[k] = v
	}
	inner := Object{"content": s.text["content"].String()} // the server's body always has content
	for k, v := range s.fixed {
		inner[k] = v
	}
	if b := s.text["thinking"]; b.Len() > 0 { // an empty thinking stays out, as the server leaves it out
		inner["thinking"] = b.String()
	}
	if len(s.calls) > 0 {
		inner["tool_calls"] = s.calls
	}
	body["message"] = inner
	if len(s.logprobs) > 0 {
		body["logprobs"] = s.logprobs
	}
	return body
}

var joined = []string{"content", "thinking"} // message strings the server concatenates
var otherWires = []string{"choices", "object", "type", "delta", "output", "response", "error"}

type ollama struct{}

// recognizes a chunk or a body: model and created_at strings, a message object, a boolean done
// if any, no key of another wire's envelope.
func (ollama) recognizes(shape any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	s, isObject := shape.(Object)
	if !isObject {
		return false
	}
	_, model := s["model"].(string)
	_, created := s["created_at"].(string)
	_, message := s["message"].(Object)
	done, has := s["done"]
	_, boolDone := done.(bool)
	for _, k := range otherWires {
		if _, has := s[k]; has {
			return false
		}
	}
	return model && created && message && (!has || boolDone)
}

// isDone is true on the chunk with "done": true, unless its done_reason is "length": a turn
// cut by num_predict did not finish, so none of its calls may run.
func (ollama) isDone(chunk any) bool {
	c, ok := chunk.(Object)
	return ok && c["done"] == true && c["done_reason"] != "length"
}

// accumulate folds one NDJSON object into the body and returns the content text it added.
func (o ollama) accumulate(s *stream, chunk any) (string, error) {
	c, ok := chunk.(Object)
	if !ok {
		return "", malformed("ollama: a chunk is a JSON object, got %s", pyDescribe(chunk))
	}
	if e, has := c["error"]; has { // the server gave up mid-stream: what came before is no answer
		return "", &bridgeError{Type: "StreamError", Name: "BridgeError",
			Message: "ollama: the server reported an error in the stream: " + pyRepr(e), Payload: c}
	}
	delta, err := checked(c) // refuse a bad line before any of it is folded
	if err != nil {
		return "", err
	}
	if s.done {
		return "", malformed("ollama: a chunk after the done chunk: %s", pyDescribe(c))
	}
	if !s.started {
		s.started = true
		s.text = map[string]*strings.Builder{"content": {}, "thinking": {}}
	}

	// The top level is the last chunk's, except logprobs, which the server extends.
	s.top = Object{}
	for key, value := range c {
		switch key {
		case "message":
		case "logprobs":
			more, _ := value.(Array)
			s.logprobs = append(s.logprobs, deepCopy(more).(Array)...)
		default:
			s.top[key] = deepCopy(value)
		}
	}

	// So is the message, except the joined texts and the extended calls.
	s.fixed = Object{}
	for key, value := range delta {
		switch key {
		case "content", "thinking":
		case "tool_calls": // EXTENDED: every chunk's calls are new, whole calls
			more, _ := value.(Array)
			s.calls = append(s.calls, deepCopy(more).(Array)...)
		default:
			s.fixed[key] = deepCopy(value)
		}
	}
	for _, key := range joined {
		piece, _ := delta[key].(string)
		if piece != "" {
			b := s.text[key]
			b.WriteString(piece)
		}
	}

	if c["done"] == true {
		s.done = true
	}
	content, _ := delta["content"].(string)
	return content, nil
}

// checked returns the chunk's message once every field the fold reads has the type the
// server writes.
func checked(chunk Object) (Object, error) {
	delta, ok := chunk["message"].(Object)
	if !ok {
		return nil, malformed("ollama: a chunk needs a 'message' object: %s", pyDescribe(chunk))
	}
	if done, has := chunk["done"]; has {
		if _, ok := done.(bool); !ok {
			return nil, malformed("ollama: 'done' must be a boolean: %s", pyDescribe(chunk))
		}
	}
	for _, key := range joined {
		if v := delta[key]; v != nil {
			if _, ok := v.(string); !ok {
				return nil, malformed("ollama: message.%s must be a string, got %s", key, pyDescribe(v))
			}
		}
	}
	if raw := delta["tool_calls"]; raw != nil {
		calls, ok := raw.(Array)
		if !ok {
			return nil, malformed("ollama: message.tool_calls must be a list, got %s", pyDescribe(raw))
		}
		for i, entry := range calls {
			e, _ := entry.(Object)
			if _, ok := e["function"].(Object); !ok {
				return nil, malformed("ollama: message.tool_calls[%d] must be an object with a 'function' object, got %s", i, pyDescribe(entry))
			}
		}
	}
	if raw := chunk["logprobs"]; raw != nil {
		if _, ok := raw.(Array); !ok {
			return nil, malformed("ollama: 'logprobs' must be a list, got %s", pyDescribe(raw))
		}
	}
	return delta, nil
}

// isTurn: a request-side assistant turn ({role, content, tool_calls}), what resultMessages
// replays, which the reading members read back whole.
func isTurn(message any) bool {
	m, ok := message.(Object)
	_, hasMessage := m["message"]
	_, hasRole := m["role"]
	return ok && !hasMessage && hasRole
}

// inner is the body's message object (or the replayed turn itself).
func inner(message any) (Object, error) {
	m, ok := message.(Object)
	if !ok {
		return nil, valueError("ollama: the message is a /api/chat body (a JSON object), got %s", pyDescribe(message))
	}
	if isTurn(m) {
		return m, nil
	}
	raw, has := m["message"]
	if !has {
		return Object{}, nil
	}
	found, ok := raw.(Object)
	if !ok {
		return nil, valueError("ollama: the body's 'message' must be an object, got %s", pyDescribe(raw))
	}
	return found, nil
}

// unfinished says why no call of the body may run ("" when they may): done and done_reason.
func unfinished(body any) string {
	if isTurn(body) {
		return "" // a turn the client replays is one it already held whole
	}
	m, _ := body.(Object)
	if m["done"] != true {
		return "the stream has not finished (no chunk with done: true)"
	}
	if m["done_reason"] == "length" {
		return "the output was cut by its length limit (done_reason: length)"
	}
	return ""
}

// toolCall is a tool call as the protocol writes it.
type toolCall struct {
	Name      string  `json:"name"`
	Arguments any     `json:"arguments"`
	ID        *string `json:"id"`
	Raw       *string `json:"raw_arguments"`
	Error     *string `json:"error"`
}

// extract gives one call per message.tool_calls entry, in order. Malformed entries, and every
// call of a body that is not done (or done by length), are error calls: never run.
func (ollama) extract(message any) ([]toolCall, error) {
	m, err := inner(message)
	if err != nil {
		return nil, err
	}
	out := []toolCall{}
	entries, _ := m["tool_calls"].(Array)
	whyNot := unfinished(message)
	ids := map[string]bool{}
	for i, entry := range entries {
		call := toCall(i, entry)
		if call.Error == nil && whyNot != "" {
			call = withError(call, whyNot)
		} else if call.Error == nil && call.ID != nil && ids[*call.ID] {
			call = withError(call, fmt.Sprintf("id %s is used twice", pyRepr(*call.ID))) // a result could answer either
		}
		if call.ID != nil {
			ids[*call.ID] = true
		}
		out = append(out, call)
	}
	return out, nil
}

// contentText is message.content ("" when there is none).
func (ollama) contentText(message any) (string, error) {
	m, err := inner(message)
	text, _ := m["content"].(string)
	return text, err
}

// formingName is the first call's name: calls arrive whole, so it is complete or absent.
func (ollama) formingName(message any) (any, error) {
	m, err := inner(message)
	if err != nil {
		return nil, err
	}
	entries, _ := m["tool_calls"].(Array)
	if len(entries) == 0 {
		return nil, nil
	}
	if name := toCall(0, entries[0]).Name; name != "" {
		return name, nil
	}
	return nil, nil
}

// resultMessages is the assistant turn as /api/chat takes it back (content, thinking, the
// calls that may run), then one tool message per record with tool_name and tool_call_id. A
// call sent without an id is replayed as call_mcs_<n> (its position among the runnable calls).
func (o ollama) resultMessages(message any, records any) (Array, error) {
	turnMessage, err := inner(message)
	if err != nil {
		return nil, err
	}
	list, ok := records.(Array)
	if !ok {
		return nil, valueError("ollama: records must be a sequence of ToolCallRecord, got %s", pyType(records))
	}
	for i, raw := range list {
		r, _ := raw.(Object)
		_, okCall := r["call"].(Object)
		_, okResult := r["result"].(string)
		_, okError := r["is_error"].(bool)
		if !okCall || !okResult || !okError {
			return nil, valueError("ollama: records[%d] is %s, not a ToolCallRecord", i, pyType(raw))
		}
	}
	all, _ := o.extract(message)
	calls, ids := []toolCall{}, []string{}
	for _, c := range all {
		if c.Error == nil {
			id := fmt.Sprintf("call_mcs_%d", len(calls))
			if c.ID != nil {
				id = *c.ID
			}
			calls, ids = append(calls, c), append(ids, id)
		}
	}

	// Each record answers one call: the first it matches that no earlier record answered (two
	// equal calls without ids get one result each), else the first it matches at all.
	answered := map[int]bool{}
	out := Array{nil} // the assistant turn goes first, once it is built
	for _, raw := range list {
		wanted := raw.(Object)["call"].(Object)
		at := -1
		for i, c := range calls {
			if answers(wanted, c) && (at == -1 || (answered[at] && !answered[i])) {
				at = i
			}
		}
		if at == -1 {
			return nil, valueError("ollama: the result for %s (id %s) answers no call in the message",
				pyRepr(wanted["name"]), pyRepr(wanted["id"]))
		}
		answered[at] = true
		out = append(out, Object{"role": "tool", "content": raw.(Object)["result"], "tool_name": wanted["name"],
			"tool_call_id": ids[at]})
	}

	content, _ := o.contentText(message)
	turn := Object{"role": "assistant", "content": content}
	if thinking, _ := turnMessage["thinking"].(string); thinking != "" {
		turn["thinking"] = thinking // replayed with the calls
	}
	if len(calls) > 0 {
		replayed := Array{}
		for i, c := range calls {
			replayed = append(replayed, Object{"type": "function", "id": ids[i],
				"function": Object{"index": i, "name": c.Name, "arguments": deepCopy(c.Arguments)}})
		}
		turn["tool_calls"] = replayed
	}
	out[0] = turn
	return out, nil
}

// toCall reads one tool_calls entry as a call; what it lacks makes it an error call.
func toCall(i int, entry any) toolCall {
	call := toolCall{Arguments: Object{}}
	e, _ := entry.(Object)
	fn, ok := e["function"].(Object)
	if !ok {
		return withError(call, fmt.Sprintf("tool_calls[%d] has no 'function' object", i))
	}
	rawID := e["id"] // current servers send one; older ones none
	if id, ok := rawID.(string); ok && id != "" {
		call.ID = &id
	}
	name, _ := fn["name"].(string)
	if name == "" {
		return withError(call, fmt.Sprintf("tool_calls[%d].function has no name", i))
	}
	call.Name = name
	if rawID != nil && call.ID == nil {
		return withError(call, fmt.Sprintf("tool_calls[%d].id must be a non-empty string, got %s", i, pyDescribe(rawID)))
	}
	switch args := fn["arguments"].(type) {
	case nil:
		return call // a tool without parameters
	case Object:
		call.Arguments = deepCopy(args)
		return call
	case string: // a server in front of Ollama may send them as JSON text
		if args == "" {
			return call
		}
		call.Raw = &args
		var parsed any
		if err := decodeJSON([]byte(args), &parsed); err != nil {
			return withError(call, "arguments are not JSON: "+err.Error())
		}
		if object, ok := parsed.(Object); ok {
			call.Arguments = object
			return call
		}
		return withError(call, "arguments do not hold a JSON object")
	default:
		return withError(call, "arguments must be a JSON object, got "+pyDescribe(args))
	}
}

func withError(call toolCall, text string) toolCall {
	call.Error = &text
	return call
}

// answers: a record's call is this call by id where either has one, else by name and arguments.
func answers(wanted Object, found toolCall) bool {
	id, hasID := wanted["id"].(string)
	if hasID || found.ID != nil {
		return hasID && found.ID != nil && id == *found.ID && wanted["name"] == found.Name
	}
	args := wanted["arguments"]
	if args == nil {
		args = Object{}
	}
	return wanted["name"] == found.Name && equal(args, found.Arguments)
}

// equal is JSON equality: objects whatever their key order, arrays in order, numbers by value.
func equal(a, b any) bool {
	switch x := a.(type) {
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, has := y[k]
			if !has || !equal(v, w) {
				return false
			}
		}
		return true
	case Array:
		y, ok := b.(Array)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, errX := x.Float64()
		fy, errY := y.Float64()
		return errX == nil && errY == nil && fx == fy
	default:
		return a == b
	}
}

func deepCopy(value any) any {
	switch v := value.(type) {
	case Object:
		out := make(Object, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case Array:
		out := make(Array, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

// -- error texts, as Python writes them ------------------------------------------------------

// pyType is the Python type name of a JSON value.
func pyType(value any) string {
	switch v := value.(type) {
	case nil:
		return "NoneType"
	case Array:
		return "list"
	case Object:
		return "dict"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return "float"
		}
		return "int"
	default:
		return fmt.Sprintf("%T", value)
	}
}

// pyRepr is Python's repr of a JSON value: 'text' in single quotes unless it holds one, True,
// None. Go's maps keep no order, so a dict's keys come sorted.
func pyRepr(value any) string {
	switch v := value.(type) {
	case nil:
		return "None"
	case bool:
		if v {
			return "True"
		}
		return "False"
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") {
			return string(v)
		}
		f, _ := v.Float64()
		return pyFloat(f)
	case string:
		quote := "'"
		if strings.Contains(v, "'") && !strings.Contains(v, `"`) {
			quote = `"`
		}
		text := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(v)
		if quote == "'" {
			text = strings.ReplaceAll(text, "'", `\'`)
		}
		return quote + text + quote
	case Array:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = pyRepr(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case Object:
		parts := []string{}
		for _, k := range sortedKeys(v) {
			parts = append(parts, pyRepr(k)+": "+pyRepr(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return fmt.Sprint(value)
	}
}

// pyFloat writes a float as Python's repr does: the shortest digits, ".0" on a whole number,
// an exponent below 1e-4 and from 1e16.
func pyFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64) // 1e-05, 1e+16: Go's exponent has Python's two digits
	}
	text := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(text, ".") {
		text += ".0"
	}
	return text
}

// pyDescribe is a short description of a value for an error text, as the Python example words it.
func pyDescribe(value any) string {
	var text string
	switch v := value.(type) {
	case Object:
		keys := sortedKeys(v)
		shown := []string{}
		for i, k := range keys {
			if i == 8 {
				shown = append(shown, "...")
				break
			}
			shown = append(shown, pyRepr(k))
		}
		text = "dict with keys [" + strings.Join(shown, ", ") + "]"
		hints := []string{}
		for _, k := range []string{"type", "object"} {
			if s, ok := v[k].(string); ok {
				hints = append(hints, k+"="+pyRepr(s))
			}
		}
		if len(hints) > 0 {
			text += " (" + strings.Join(hints, ", ") + ")"
		}
	case string:
		runes := []rune(v)
		if len(runes) > 60 {
			text = "str " + pyRepr(string(runes[:60])) + "..."
		} else {
			text = "str " + pyRepr(v)
		}
	default:
		text = pyType(value) + " " + pyRepr(value)
	}
	if runes := []rune(text); len(runes) > 120 {
		return string(runes[:117]) + "..."
	}
	return text
}

func sortedKeys(object Object) []string {
	keys := make([]string, 0, len(object))
	for k := range object {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
