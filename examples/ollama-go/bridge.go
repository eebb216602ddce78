// Protocol 1 of the bridge (docs/bridge.md), spoken for the strategy in main.go with Go's
// standard library: one JSON object a line on stdin, one reply a line on stdout, in order.
//
// Go's encoding/json replaces a lone UTF-16 surrogate with U+FFFD when it reads one and
// writes U+FFFD for text that is not valid UTF-8, so the handshake asks for the wtf8-marked
// form: a string that is not valid Unicode crosses as "\u0000wtf8:" and the base64 of its
// WTF-8 bytes, which markedToText and textToMarked turn into a Go string holding those bytes
// and back. Numbers are read as json.Number, so an integer past 2**53 keeps every digit.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"
)

const protocol = 1
const mark = "\x00wtf8:"

var members = []string{"recognizes", "accumulate", "is_done", "extract", "content_text", "forming_name",
	"result_messages", "cpu_time"}

// bridgeError is an error answered as data: its Type is one of the protocol's.
type bridgeError struct {
	Type    string `json:"type"`
	Name    string `json:"name"`
	Message string `json:"message"`
	Payload any    `json:"payload,omitempty"`
}

func (e *bridgeError) Error() string { return e.Message }

func malformed(format string, args ...any) error {
	return &bridgeError{Type: "MalformedChunk", Name: "BridgeError", Message: fmt.Sprintf(format, args...)}
}

func valueError(format string, args ...any) error {
	return &bridgeError{Type: "ValueError", Name: "BridgeError", Message: fmt.Sprintf(format, args...)}
}

// decodeJSON reads one JSON value, numbers as json.Number.
func decodeJSON(data []byte, into *any) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	if err := decoder.Decode(into); err != nil {
		return err
	}
	if decoder.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

// markedToText turns every marked string (and object key) of a request into the Go string
// of its WTF-8 bytes.
func markedToText(value any) any {
	switch v := value.(type) {
	case string:
		if !strings.HasPrefix(v, mark) {
			return v
		}
		raw, err := base64.StdEncoding.DecodeString(v[len(mark):])
		if err != nil {
			return v
		}
		return string(raw)
	case Object:
		out := make(Object, len(v))
		for k, x := range v {
			out[markedToText(k).(string)] = markedToText(x)
		}
		return out
	case Array:
		out := make(Array, len(v))
		for i, x := range v {
			out[i] = markedToText(x)
		}
		return out
	default:
		return v
	}
}

// textToMarked writes every string that is not valid UTF-8 (a lone surrogate's three bytes),
// or that begins with the mark, in the marked form, before encoding/json sees it.
func textToMarked(value any) any {
	switch v := value.(type) {
	case string:
		if utf8.ValidString(v) && !strings.HasPrefix(v, mark) {
			return v
		}
		return mark + base64.StdEncoding.EncodeToString([]byte(v))
	case *string:
		if v == nil {
			return nil
		}
		return textToMarked(*v)
	case Object:
		out := make(Object, len(v))
		for k, x := range v {
			out[textToMarked(k).(string)] = textToMarked(x)
		}
		return out
	case Array:
		out := make(Array, len(v))
		for i, x := range v {
			out[i] = textToMarked(x)
		}
		return out
	case []toolCall:
		out := make(Array, len(v))
		for i, c := range v {
			out[i] = Object{"name": textToMarked(c.Name), "arguments": textToMarked(c.Arguments),
				"id": textToMarked(c.ID), "raw_arguments": textToMarked(c.Raw), "error": textToMarked(c.Error)}
		}
		return out
	case *bridgeError:
		out := Object{"type": v.Type, "name": v.Name, "message": textToMarked(v.Message)}
		if v.Type == "StreamError" {
			out["payload"] = textToMarked(v.Payload)
		}
		return out
	default:
		return v
	}
}

// cpuSeconds is this process's CPU time (user and system), for cpu_time.
func cpuSeconds() float64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0
	}
	return float64(usage.Utime.Nano()+usage.Stime.Nano()) / 1e9
}

type server struct {
	strategy ollama
	streams  map[json.Number]*stream
	spent    float64 // CPU seconds in the strategy's members and in writing their answers
}

// answer runs one request; a panic of the strategy's is answered as an Error.
func (s *server) answer(request Object) (ok any, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = nil, &bridgeError{Type: "Error", Name: "panic", Message: fmt.Sprint(r)}
		}
	}()
	o := s.strategy
	switch request["cmd"] {
	case "start":
		return Object{"protocol": protocol, "name": "ollama", "leaks_into_text": true,
			"implementation": Object{"name": "ollama-go-example", "version": "1.0.0", "language": "go"},
			"members":        members, "string_form": "wtf8-marked"}, nil
	case "ping":
		return nil, nil
	case "cpu_time":
		return s.spent, nil
	case "recognizes":
		return o.recognizes(request["shape"]), nil
	case "is_done":
		return o.isDone(request["chunk"]), nil
	case "accumulate":
		return o.accumulate(s.stream(request["stream"]), request["chunk"])
	case "as_dict":
		n, _ := request["stream"].(json.Number)
		if st := s.streams[n]; st != nil {
			return st.message(), nil
		}
		return nil, nil
	case "extract":
		return o.extract(request["message"])
	case "content_text":
		return o.contentText(request["message"])
	case "forming_name":
		return o.formingName(request["message"])
	case "result_messages":
		return o.resultMessages(request["message"], request["records"])
	}
	return nil, &bridgeError{Type: "Error", Name: "BridgeError", Message: fmt.Sprintf("unknown command %v", request["cmd"])}
}

func (s *server) stream(number any) *stream {
	n, _ := number.(json.Number)
	st := s.streams[n]
	if st == nil {
		st = &stream{}
		s.streams[n] = st
	}
	return st
}

var idInLine = regexp.MustCompile(`"id"\s*:\s*(\d+)\s*[,}]`)

func reply(id any, ok any, err error) Object {
	if err != nil {
		if be, isBridge := err.(*bridgeError); isBridge {
			return Object{"id": id, "error": be}
		}
		return Object{"id": id, "error": &bridgeError{Type: "Error", Name: fmt.Sprintf("%T", err), Message: err.Error()}}
	}
	return Object{"id": id, "ok": ok}
}

func (s *server) serve(in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<16)
	writer := bufio.NewWriterSize(out, 1<<16)
	for {
		line, readErr := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.handle(line, writer)
			if err := writer.Flush(); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return nil
		}
		if readErr != nil {
			return readErr
		}
	}
}

func (s *server) handle(line []byte, writer *bufio.Writer) {
	var decoded any
	if err := decodeJSON(line, &decoded); err != nil { // NaN, Infinity: encoding/json reads no such token
		m := idInLine.FindSubmatch(line)
		if m == nil {
			fmt.Fprintf(os.Stderr, "ollama-go: a line that is not JSON (%v): %.200s\n", err, line)
			os.Exit(2)
		}
		s.write(writer, reply(json.Number(m[1]), nil, valueError("the request is no JSON this peer reads: %v", err)))
		return
	}
	request, ok := markedToText(decoded).(Object)
	if !ok {
		fmt.Fprintf(os.Stderr, "ollama-go: a request is an object, got: %.200s\n", line)
		os.Exit(2)
	}
	if drop, ok := request["drop"].(Array); ok {
		for _, n := range drop {
			if number, ok := n.(json.Number); ok {
				delete(s.streams, number)
			}
		}
	}
	cmd, _ := request["cmd"].(string)
	timed := cmd != "start" && cmd != "ping" && cmd != "cpu_time"
	started := 0.0
	if timed {
		started = cpuSeconds()
	}
	value, err := s.answer(request)
	out := reply(request["id"], value, err)
	if cmd == "accumulate" && err == nil && request["and_is_done"] == true {
		done, doneErr := s.answer(Object{"cmd": "is_done", "chunk": request["chunk"]})
		if doneErr != nil {
			out["is_done"] = Object{"error": doneErr}
		} else {
			out["is_done"] = Object{"ok": done}
		}
	}
	s.write(writer, out)
	if timed {
		s.spent += cpuSeconds() - started
	}
}

func (s *server) write(writer *bufio.Writer, out Object) {
	encoder := json.NewEncoder(writer) // ends the line with \n
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(textToMarked(out)); err != nil {
		fallback := reply(out["id"], nil, &bridgeError{Type: "Error", Name: "json", Message: err.Error()})
		_ = encoder.Encode(textToMarked(fallback))
	}
}

func main() {
	s := &server{streams: map[json.Number]*stream{}}
	if err := s.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "ollama-go: %v\n", err)
		os.Exit(1)
	}
}
