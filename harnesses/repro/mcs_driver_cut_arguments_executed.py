"""mcs-driver-core runs a native OpenAI tool call whose arguments are no JSON (cut off at
``{"city": "Par``) with ``{}`` and reports it executed: ``OpenAIExtractionStrategy.extract``
turns a ``json.JSONDecodeError`` into ``arguments = {}``, and
``BaseDriver.process_llm_response`` executes the call and returns ``call_executed=True``.
Its ``DriverResponse`` documents ``call_failed`` for exactly this: "True when a tool-call
signature was found but could not be parsed or executed".

The message is the assistant message of a Chat Completions answer cut by the token limit
(``finish_reason: "length"``), the shape the openai SDK gives for ``choices[0].message``
(streamed: what its ``ChatCompletionStreamState`` assembles from a stream cut there), inlined.

    pip install mcs-driver-core==0.4.1
    python mcs_driver_cut_arguments_executed.py

Exits 1 while the driver executes the call (0 once it reports call_failed or no call).
"""
# requires: mcs-driver-core==0.4.1

import json
import sys

from mcs.driver.core import BaseDriver, Tool

MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"id": "call_cut", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Par'}},
    ],
}
RAN = []


class Driver(BaseDriver):
    """A driver with the one tool the message calls; it records what it is run with."""

    def list_tools(self) -> list:
        return [Tool(name="get_weather", description="the weather in a city")]

    def execute_tool(self, tool_name, arguments):
        RAN.append((tool_name, arguments))
        return "sunny"


response = Driver().process_llm_response(MESSAGE)
print(f"arguments on the wire            {MESSAGE['tool_calls'][0]['function']['arguments']!r} "
      f"(json.loads: not JSON)")
print(f"{'expected':<32} call_failed=True, the tool not run (DriverResponse.call_failed)")
print(f"{'process_llm_response':<32} call_executed={response.call_executed} call_failed={response.call_failed}")
for name, arguments in RAN:
    print(f"tool run: {name} with {json.dumps(arguments)}")
sys.exit(1 if RAN or response.call_executed else 0)
