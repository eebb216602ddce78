// An Ollama /api/chat strategy in Go, served to the conformance suite through the bridge
// (docs/bridge.md): the behaviour of examples/ollama/ollama_strategy.py and
// examples/ollama-js/ollama_strategy.mjs, written with Go's standard library alone, to show
// that a compiled language passes the suite too.
//
// The wire is NDJSON: one object per line, {"model", "created_at", "message": {...},
// "done": false}, and a last one with "done": true, done_reason and timings. An error
// during the stream arrives as a line {"error": "..."}.
//
// The native message is the message object of the stream=false response: content and
// thinking are the concatenation of the chunks' pieces (grown in a strings.Builder, so that
// feeding stays linear), and tool_calls is EXTENDED with each chunk's list (Ollama sends
// every call whole, arguments as a JSON object, no index, no id). Other message keys are
// kept as first sent.
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
	"strings"
)

// Object and Array are the shapes encoding/json decodes into (numbers as json.Number).
type Object = map[string]any
type Array = []any

// stream is one accumulator: the message's keys as first sent, its growing text, its calls.
type stream struct {
	started bool
	fixed   Object
	text    map[string]*strings.Builder
	calls   Array
	callsOn bool
	seen    map[string]bool
}

// message is the native message so far (nil before the stream's first chunk).
func (s *stream) message() any {
	if !s.started {
		return nil
	}
	out := Object{}
	for k, v := range s.fixed {
		out[k] = v
	}
	for k, b := range s.text {
		out[k] = b.String()
	}
	if s.callsOn {
		out["tool_calls"] = s.calls
	}
	return out
}

var growing = map[string]bool{"content": true, "thinking": true}
var envelope = []string{"type", "object", "choices", "delta", "output", "model", "created_at", "message"}

type ollama struct{}

func (ollama) recognizes(shape any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return isChunk(shape) || isMessage(shape)
}

// isDone is true on the chunk with "done": true, unless its done_reason is "length": a turn
// cut by num_predict is not finished, and the message itself cannot say so.
func (ollama) isDone(chunk any) bool {
	c, ok := chunk.(Object)
	return ok && c["done"] == true && c["done_reason"] != "length"
}

func (o ollama) accumulate(s *stream, chunk any) (string, error) {
	c, ok := chunk.(Object)
	if !ok {
		return "", malformed("ollama: a chunk is a JSON object, got %s", typeName(chunk))
	}
	if e, has := c["error"]; has && e != nil {
		return "", &bridgeError{Type: "StreamError", Name: "BridgeError",
			Message: "ollama: the server reported an error in the stream: " + pyStr(e), Payload: c}
	}
	if !s.started {
		s.started, s.fixed, s.text, s.seen = true, Object{}, map[string]*strings.Builder{}, map[string]bool{}
	}
	raw, has := c["message"]
	if !has || raw == nil {
		return "", nil
	}
	delta, ok := raw.(Object)
	if !ok {
		return "", malformed("ollama: 'message' must be an object, got %s", typeName(raw))
	}
	calls, err := checked(delta)
	if err != nil {
		return "", err
	}
	for key, value := range delta {
		grows := growing[key]
		if grows && value == nil {
			continue
		}
		piece, _ := value.(string)
		if s.seen[key] && !(grows && piece != "") && !(key == "tool_calls" && len(calls) > 0) {
			continue
		}
		switch {
		case grows:
			b := s.text[key]
			if b == nil {
				b = &strings.Builder{}
				s.text[key] = b
			}
			b.WriteString(piece)
		case key == "tool_calls":
			if len(calls) > 0 { // EXTENDED: every chunk's calls are new, whole calls
				s.callsOn = true
				for _, call := range calls {
					s.calls = append(s.calls, deepCopy(call))
				}
			}
		default:
			s.fixed[key] = deepCopy(value)
		}
		s.seen[key] = true
	}
	content, _ := delta["content"].(string)
	return content, nil
}

// checked returns the chunk's tool calls after checking the message's fields.
func checked(delta Object) (Array, error) {
	for key := range growing {
		if v, has := delta[key]; has && v != nil {
			if _, ok := v.(string); !ok {
				return nil, malformed("ollama: message.%s must be a string, got %s", key, typeName(v))
			}
		}
	}
	raw := delta["tool_calls"]
	if raw == nil {
		return nil, nil
	}
	calls, ok := raw.(Array)
	if !ok {
		return nil, malformed("ollama: message.tool_calls must be a list, got %s", typeName(raw))
	}
	for i, entry := range calls {
		e, ok := entry.(Object)
		if !ok {
			return nil, malformed("ollama: message.tool_calls[%d] must be an object with a 'function' object", i)
		}
		if _, ok := e["function"].(Object); !ok {
			return nil, malformed("ollama: message.tool_calls[%d] must be an object with a 'function' object", i)
		}
	}
	return calls, nil
}

// toolCall is a tool call as the protocol writes it.
type toolCall struct {
	Name      string  `json:"name"`
	Arguments any     `json:"arguments"`
	ID        *string `json:"id"`
	Raw       *string `json:"raw_arguments"`
	Error     *string `json:"error"`
}

// extract gives one call per tool_calls entry, in order; malformed entries carry error.
func (ollama) extract(message any) []toolCall {
	m, _ := message.(Object)
	entries, _ := m["tool_calls"].(Array)
	out := []toolCall{}
	for i, entry := range entries {
		out = append(out, toCall(i, entry))
	}
	return out
}

func (ollama) contentText(message any) string {
	m, _ := message.(Object)
	text, _ := m["content"].(string)
	return text
}

// formingName is the first call's name: Ollama sends calls whole, so it is complete or absent.
func (o ollama) formingName(message any) any {
	calls := o.extract(message)
	if len(calls) == 0 || calls[0].Name == "" {
		return nil
	}
	return calls[0].Name
}

// resultMessages is the assistant turn as Ollama takes it back, then one tool message per record.
func (o ollama) resultMessages(message any, records any) (Array, error) {
	m, ok := message.(Object)
	if !ok {
		return nil, valueError("ollama: the message is a JSON object, got %s", typeName(message))
	}
	list, ok := records.(Array)
	if !ok {
		return nil, valueError("ollama: the records are a list, got %s", typeName(records))
	}
	calls := o.extract(m)
	for _, raw := range list {
		r, ok := raw.(Object)
		call, okCall := r["call"].(Object)
		_, okResult := r["result"].(string)
		_, okError := r["is_error"].(bool)
		if !ok || !okCall || !okResult || !okError {
			return nil, valueError("ollama: expected tool call records {call, result, is_error}, got %s", typeName(raw))
		}
		answered := false
		for _, c := range calls {
			if c.Error == nil && same(call, c) {
				answered = true
				break
			}
		}
		if !answered {
			name, _ := json.Marshal(call["name"])
			return nil, valueError("ollama: the result for %s answers no call in the message", name)
		}
	}
	turn := Object{"role": "assistant", "content": o.contentText(m)}
	if thinking, _ := m["thinking"].(string); thinking != "" {
		turn["thinking"] = thinking
	}
	if len(calls) > 0 {
		replayed := Array{}
		for i, c := range calls {
			replayed = append(replayed, Object{"type": "function",
				"function": Object{"index": i, "name": c.Name, "arguments": deepCopy(c.Arguments)}})
		}
		turn["tool_calls"] = replayed
	}
	out := Array{turn}
	for _, raw := range list {
		r := raw.(Object)
		out = append(out, Object{"role": "tool", "content": r["result"], "tool_name": r["call"].(Object)["name"]})
	}
	return out, nil
}

func isChunk(shape any) bool {
	s, ok := shape.(Object)
	if !ok {
		return false
	}
	_, model := s["model"].(string)
	_, created := s["created_at"].(string)
	_, message := s["message"].(Object)
	done, has := s["done"]
	_, boolDone := done.(bool)
	for _, k := range []string{"choices", "object", "type"} {
		if _, has := s[k]; has {
			return false
		}
	}
	return model && created && message && (!has || boolDone)
}

func isMessage(shape any) bool {
	s, ok := shape.(Object)
	if !ok || s["role"] != "assistant" {
		return false
	}
	if content, has := s["content"]; has {
		if _, ok := content.(string); !ok {
			return false
		}
	}
	for _, k := range envelope {
		if _, has := s[k]; has {
			return false
		}
	}
	entries, ok := s["tool_calls"].(Array)
	if !ok || len(entries) == 0 {
		return false
	}
	for _, entry := range entries {
		e, ok := entry.(Object)
		if !ok {
			return false
		}
		fn, ok := e["function"].(Object)
		if !ok {
			return false
		}
		if _, ok := fn["arguments"].(Object); !ok {
			return false
		}
	}
	return true
}

func toCall(i int, entry any) toolCall {
	call := toolCall{Arguments: Object{}}
	e, _ := entry.(Object)
	fn, ok := e["function"].(Object)
	if !ok {
		return withError(call, fmt.Sprintf("tool_calls[%d] has no 'function' object", i))
	}
	if id, ok := e["id"].(string); ok {
		call.ID = &id
	}
	name, _ := fn["name"].(string)
	if name == "" {
		return withError(call, fmt.Sprintf("tool_calls[%d].function has no name", i))
	}
	call.Name = name
	switch args := fn["arguments"].(type) {
	case nil:
		return call
	case Object:
		call.Arguments = deepCopy(args)
		return call
	case string: // some servers in front of Ollama serialise them
		call.Raw = &args
		if strings.TrimSpace(args) == "" {
			return call
		}
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
		return withError(call, "arguments must be a JSON object, got "+typeName(args))
	}
}

func withError(call toolCall, text string) toolCall {
	call.Error = &text
	return call
}

// same: a record answers a call by its id when both have one, else by name and arguments.
func same(wanted Object, found toolCall) bool {
	if id, ok := wanted["id"].(string); ok && found.ID != nil {
		return id == *found.ID
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

// typeName names a JSON value's type as the JavaScript example does (its error texts are
// this example's too).
func typeName(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case Array:
		return "array"
	case Object:
		return "object"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	default:
		return fmt.Sprintf("%T", value)
	}
}

func pyStr(value any) string {
	if s, ok := value.(string); ok {
		return s
	}
	text, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	return string(text)
}
