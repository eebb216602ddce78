"""Gemini, the strategy: the protocol methods, the folding of a payload's candidates and parts
(:mod:`.chunks` checks payloads and folds streamed arguments), and the reading of the message."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...accumulator import Accumulator, copy_tree
from ...errors import StreamError
from ...protocol import ToolCall, ToolCallRecord, require_records
from ...wire import describe
from .chunks import bad, check_partial_args, fold_partial_args

_FOREIGN = frozenset({"type", "object", "choices", "message", "output", "created_at", "done"})
_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})


class GeminiStrategy:
    """Google Gemini ``streamGenerateContent`` (SSE): ``GenerateContentResponse`` payloads."""

    name = "gemini"
    leaks_into_text = True

    # -- recognition ----------------------------------------------------------------------
    def recognizes(self, shape: object) -> bool:
        """A ``GenerateContentResponse`` (a payload or the assembled body), a Gemini error
        payload (``google.rpc.Status`` in ``error``), or a replayed ``model`` turn. Never raises."""
        try:
            if _is_model_turn(shape):
                return True
            if not isinstance(shape, dict) or any(k in shape for k in _FOREIGN):
                return False
            if "error" in shape:
                error = shape["error"]
                return isinstance(error, dict) and "type" not in error and (
                    isinstance(error.get("status"), str) or type(error.get("code")) is int)
            if isinstance(shape.get("candidates"), list):
                return all(isinstance(c, dict) for c in shape["candidates"])
            return "candidates" not in shape and (isinstance(shape.get("usageMetadata"), dict)
                                                  or isinstance(shape.get("promptFeedback"), dict))
        except Exception:
            return False

    def is_done(self, chunk: object) -> bool:
        """True on a payload whose candidate carries a ``finishReason`` (``MAX_TOKENS`` too: the
        message holds it, and ``extract`` marks the cut turn's calls)."""
        if not isinstance(chunk, dict) or not isinstance(chunk.get("candidates"), list):
            return False
        return any(isinstance(c, dict) and isinstance(c.get("finishReason"), str) and c["finishReason"]
                   for c in chunk["candidates"])

    # -- reassembly -----------------------------------------------------------------------
    def accumulate(self, acc: Accumulator, chunk: object) -> str:
        """Fold one payload into the response body; return the answer text it added."""
        if not isinstance(chunk, dict):
            raise bad("a payload must be a JSON object (a GenerateContentResponse)", chunk)
        if chunk.get("error") is not None:
            error = chunk["error"]
            detail = (f"{error.get('status')} {error.get('code')}: {error.get('message')}"
                      if isinstance(error, dict) else repr(error))
            raise StreamError(f"gemini: the stream reported an error ({detail})", payload=chunk)
        candidates = chunk.get("candidates", [])
        if not isinstance(candidates, list) or not all(isinstance(c, dict) for c in candidates):
            raise bad("candidates is not a list of objects", chunk)
        for c in candidates:
            _check_candidate(c, chunk)
        st = acc.state
        if not st.get("started"):
            acc.root = {}
            st.update(started=True, cands={}, open={})
        message = acc.root  # read once: every edit below is in place
        for key, value in chunk.items():
            if key != "candidates":
                message[key] = copy_tree(value)
        text = []
        for candidate in candidates:
            text.append(self._candidate(acc, message, candidate, chunk))
        return "".join(text)

    def _candidate(self, acc: Accumulator, message: dict, candidate: dict, chunk: dict) -> str:
        index = candidate.get("index", 0)
        st = acc.state
        target = st["cands"].get(index)
        if target is None:
            target = st["cands"][index] = {}
            message.setdefault("candidates", []).append(target)
        text = ""
        for key, value in candidate.items():
            if key != "content":
                target[key] = copy_tree(value)
                continue
            into = target.setdefault("content", {})
            for ckey, cvalue in value.items():
                if ckey != "parts":
                    into[ckey] = copy_tree(cvalue)
                    continue
                parts = into.setdefault("parts", [])
                for part in cvalue:
                    text += self._part(acc, parts, part, (index, st), chunk)
        return text

    def _part(self, acc: Accumulator, parts: list, part: dict, where: tuple, chunk: dict) -> str:
        index, st = where
        open_call = st["open"].get(index)
        if "functionCall" in part:
            return self._call_part(acc, parts, part, index, st, chunk)
        if part.get("text") == "" and set(part) <= {"text", "thought"}:
            return ""  # an empty text part adds nothing (a finish payload's, often)
        if open_call is not None:
            _end_open_call(st, index)
        if "text" not in part:
            parts.append(copy_tree(part))
            return ""
        piece = part["text"]
        thought = part.get("thought") is True
        last = parts[-1] if parts else None
        if (isinstance(last, dict) and set(last) <= _TEXT_KEYS and "text" in last and set(part) <= _TEXT_KEYS
                and (last.get("thought") is True) == thought and "thoughtSignature" not in last):
            if piece:
                acc.append(last, "text", piece)
            for key, value in part.items():
                if key != "text":
                    last[key] = copy_tree(value)
        else:
            parts.append({k: copy_tree(v) for k, v in part.items()})
        return "" if thought else piece

    def _call_part(self, acc: Accumulator, parts: list, part: dict, index: Any, st: dict, chunk: dict) -> str:
        fc = part["functionCall"]
        items = check_partial_args(fc["partialArgs"], chunk) if "partialArgs" in fc else []
        opened = st["open"].get(index)
        if opened is not None and "name" in fc:
            _end_open_call(st, index)  # a name starts a call: the open one ends here
            opened = None
        if opened is not None:
            call, holder = opened["call"], opened["part"]
        else:
            if "name" not in fc and (items or "args" not in fc):
                raise bad("a functionCall part continues no streamed call (it has no name, and no earlier "
                          "part said willContinue)", chunk)
            call = {k: copy_tree(v) for k, v in fc.items() if k not in ("partialArgs", "willContinue")}
            holder = {"functionCall": call}
            parts.append(holder)
        for key, value in part.items():
            if key != "functionCall":
                holder[key] = copy_tree(value)
        if opened is not None:
            for key, value in fc.items():
                if key not in ("partialArgs", "willContinue", "name"):
                    call[key] = copy_tree(value)
        state = opened if opened is not None else {"call": call, "part": holder, "open_string": None}
        fold_partial_args(acc, call, items, state, chunk)
        if fc.get("willContinue") is True:
            call["willContinue"] = True
            st["open"][index] = state
        elif state.get("open_string") is None:
            call.pop("willContinue", None)
            st["open"].pop(index, None)
        else:  # the call ends while a string value of it said willContinue: that value was cut
            st["open"].pop(index, None)
        return ""

    # -- reading the message --------------------------------------------------------------
    def extract(self, message: object) -> list[ToolCall]:
        """One call per ``functionCall`` part of the first candidate, in order.

        Executable only in a finished turn (``finishReason`` ``STOP``; a replayed ``model``
        turn counts as finished): no finish reason yet, ``MAX_TOKENS`` or any other reason
        marks every call. A call without a name, with ``args`` that is no object, with streamed
        arguments that never ended (``willContinue``) or repeating an earlier call's id is
        marked too. The id is the wire's ``functionCall.id``, else None: nothing is made up.
        """
        content, finish = _turn(message)
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            return []
        calls: list[ToolCall] = []
        seen: set[str] = set()
        for part in parts:
            fc = part.get("functionCall") if isinstance(part, dict) else None
            if fc is None:
                continue
            if not isinstance(fc, dict):
                calls.append(ToolCall(name="", error="functionCall is not an object"))
                continue
            name = fc.get("name") if isinstance(fc.get("name"), str) else ""
            args = fc.get("args", {})
            args = {} if args is None else args
            call_id = fc.get("id") if isinstance(fc.get("id"), str) and fc.get("id") else None
            error = None
            if not name:
                error = "functionCall has no name"
            elif not isinstance(args, dict):
                error = "functionCall args is not a JSON object"
            elif call_id is not None and call_id in seen:
                error = f"functionCall id {call_id!r} repeats an earlier call's, so its result cannot be told apart"
            elif fc.get("willContinue") is True:
                error = "the call's streamed arguments never ended (its last part said willContinue)"
            else:
                error = _finish_problem(finish)
            if call_id is not None:
                seen.add(call_id)
            calls.append(ToolCall(name=name, arguments=copy_tree(args) if isinstance(args, dict) else {},
                                  id=call_id, error=error))
        return calls

    def content_text(self, message: object) -> str:
        """The text of the first candidate's answer parts (not ``thought`` parts), in order."""
        content, _ = _turn(message)
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            return ""
        return "".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
                       and p.get("thought") is not True)

    def forming_name(self, message: object) -> str | None:
        """The first ``functionCall`` part's name (a call's name arrives whole), or None."""
        content, _ = _turn(message)
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else ():
            fc = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(fc, dict):
                name = fc.get("name")
                return name if isinstance(name, str) and name else None
        return None

    def result_messages(self, message: object, records: Sequence[ToolCallRecord]) -> list[dict]:
        """The ``model`` turn as the request's ``contents`` takes it back, then one ``user`` turn
        with a ``functionResponse`` part per record, in the calls' order.

        The model turn keeps every part as received (thought parts and every
        ``thoughtSignature`` where it came), a call as ``name`` and ``args`` (and the wire's
        ``id``); empty text parts without a signature and calls without a name are left out.
        A response is ``{"output": result}``, or ``{"error": result}`` for a failed call.
        """
        content, _ = _turn(message)
        parts = content.get("parts") if isinstance(content, dict) else None
        if not isinstance(parts, list):
            raise ValueError(f"gemini: not an assembled GenerateContentResponse or model turn: {describe(message)}")
        records = require_records(records, self.name)
        calls = [c for c in self.extract(message) if c.name and not (c.error or "").startswith("the call's streamed")]
        answered = _pair(records, calls)
        turn = {"role": "model", "parts": [p for p in (_replayed(part) for part in parts) if p is not None]}
        out = [turn]
        if records:
            responses = []
            for position, record in sorted(answered, key=lambda pair: pair[0]):
                call = calls[position]
                response: dict[str, Any] = {"name": call.name,
                                            "response": {"error" if record.is_error else "output": record.result}}
                if call.id is not None:
                    response["id"] = call.id
                responses.append({"functionResponse": response})
            out.append({"role": "user", "parts": responses})
        return out


def _pair(records: list[ToolCallRecord], calls: list[ToolCall]) -> list[tuple[int, ToolCallRecord]]:
    """Each record with the position of the call it answers: the call with its id, or, for a
    call that came without one, the first call not answered yet with the same name and
    arguments. A record that answers no call, or a call answered already, is a ValueError."""
    taken: set[int] = set()
    out = []
    for record in records:
        want = record.call
        found = next((i for i, c in enumerate(calls) if i not in taken and (
            c.id == want.id if want.id is not None else
            c.id is None and c.name == want.name and c.arguments == want.arguments)), None)
        if found is None:
            again = any(i in taken for i, c in enumerate(calls) if want.id is not None and c.id == want.id)
            raise ValueError(f"gemini: {'two results for' if again else 'a result for'} {want.name!r} (id {want.id!r}) "
                             + ("" if again else "answers no functionCall of the message"))
        taken.add(found)
        out.append((found, record))
    return out


def _end_open_call(st: dict, index: Any) -> None:
    """End the candidate's open streamed call where another part begins (vercel/ai's reader ends
    it there too). A string value of it whose last piece said willContinue never ended: the call
    keeps its ``willContinue`` mark, which extract reads as arguments cut short."""
    opened = st["open"].pop(index)
    if opened.get("open_string") is None:
        opened["call"].pop("willContinue", None)


def _check_candidate(candidate: dict, chunk: object) -> None:
    """Refuse a candidate whose content cannot be folded (checked before anything is folded)."""
    index = candidate.get("index", 0)
    if type(index) is not int:
        raise bad("candidate index is not an integer", chunk)
    if "content" not in candidate:
        return
    content = candidate["content"]
    if not isinstance(content, dict):
        raise bad("candidate content is not an object", chunk)
    parts = content.get("parts", [])
    if not isinstance(parts, list):
        raise bad("content.parts is not a list", chunk)
    for i, part in enumerate(parts):
        if not isinstance(part, dict):
            raise bad(f"content.parts[{i}] is not an object", chunk)
        if "text" in part and not isinstance(part["text"], str):
            raise bad(f"content.parts[{i}].text is not a string", chunk)
        if "functionCall" in part:
            fc = part["functionCall"]
            if not isinstance(fc, dict):
                raise bad(f"content.parts[{i}].functionCall is not an object", chunk)
            if "name" in fc and not isinstance(fc["name"], str):
                raise bad(f"content.parts[{i}].functionCall.name is not a string", chunk)
            if "text" in part:
                raise bad(f"content.parts[{i}] holds both text and a functionCall", chunk)


def _is_model_turn(shape: object) -> bool:
    return (isinstance(shape, dict) and shape.get("role") == "model" and isinstance(shape.get("parts"), list)
            and set(shape) <= {"role", "parts"})


def _turn(message: object) -> tuple[Any, str | None]:
    """The content of the message's first candidate and its finish reason; a replayed ``model``
    turn is its own content and counts as finished."""
    if _is_model_turn(message):
        return message, "STOP"
    candidates = message.get("candidates") if isinstance(message, dict) else None
    if not isinstance(candidates, list):
        return None, None
    first = next((c for c in candidates if isinstance(c, dict) and c.get("index", 0) == 0), None)
    if first is None:
        return None, None
    finish = first.get("finishReason")
    return first.get("content"), finish if isinstance(finish, str) else None


def _finish_problem(finish: str | None) -> str | None:
    if finish is None:
        return "message incomplete: the candidate has no finishReason"
    if finish == "MAX_TOKENS":
        return "the turn was cut by MAX_TOKENS: no call of it is run"
    if finish != "STOP":
        return f"finishReason {finish}: the turn did not end normally"
    return None


def _replayed(part: object) -> dict | None:
    if not isinstance(part, dict):
        return None
    if "functionCall" in part:
        fc = part["functionCall"]
        if not isinstance(fc, dict) or not isinstance(fc.get("name"), str) or not fc["name"]:
            return None  # never executable, and the API refuses a call without a name
        if fc.get("willContinue") is True:  # its arguments never ended: never executable; its signature goes back
            return {"text": "", "thoughtSignature": part["thoughtSignature"]} if part.get("thoughtSignature") else None
        args = fc.get("args")
        call: dict[str, Any] = {"name": fc["name"], "args": copy_tree(args) if isinstance(args, dict) else {}}
        if isinstance(fc.get("id"), str) and fc["id"]:
            call["id"] = fc["id"]
        out = {"functionCall": call}
        out.update((k, copy_tree(v)) for k, v in part.items() if k != "functionCall" and v is not None)
        return out
    if "text" in part and not part.get("text") and not part.get("thoughtSignature"):
        return None
    return {k: copy_tree(v) for k, v in part.items() if v is not None}
