"""The LLM interpreter: a chat-completions endpoint as the paper's "Verifier (end-to-end)" arm.

Each utterance becomes one chat request: the prompt condition's system
message and the turn's user message (:func:`~gcv.interpret.prompts.build_messages`),
with the reply's JSON Schema as the structured-output format
(:func:`~gcv.interpret.validate.response_schema`).  The model's answer is
returned as it came; the caller validates it.
"""

from __future__ import annotations

import icontract

from gcv.interpret.client import ChatClient
from gcv.interpret.prompts import PromptSet, build_messages, load_prompts, prompt_digest
from gcv.interpret.protocol import Condition, Reply, Request
from gcv.interpret.validate import response_schema

__all__ = ["LLMInterpreter"]


class LLMInterpreter:
    """Interprets utterances by asking ``client``'s model under one prompt ``condition``.

    Examples
    --------
    >>> from gcv.interpret.client import ClientConfig
    >>> client = ChatClient(ClientConfig("http://127.0.0.1:8080/v1", "qwen2.5-7b"))
    >>> llm = LLMInterpreter(client, Condition.DEFINITIONS)
    >>> info = llm.describe()
    >>> info["model"], info["condition"], info["prompts"][:3]
    ('qwen2.5-7b', 'definitions', 'v2 ')
    """

    def __init__(
        self, client: ChatClient, condition: Condition, prompts: PromptSet | None = None
    ) -> None:
        self.client = client
        self.condition = condition
        self.prompts = prompts or load_prompts()

    def describe(self) -> dict[str, str]:
        """The model, endpoint, condition, prompt version (with digest) and output format."""
        digest = prompt_digest(self.prompts, self.condition)
        return {
            "interpreter": "llm",
            "model": self.client.config.model,
            "endpoint": self.client.config.url,
            "condition": self.condition.value,
            "prompts": f"{self.prompts.version} (sha256 {digest})",
            "response_format": self.client.response_format.value,
        }

    @icontract.ensure(lambda result: result.attempts >= 1, "at least one request was made")
    def interpret(self, request: Request) -> Reply:
        """Ask the model for ``request``'s operations.

        Raises
        ------
        EndpointError
            The endpoint failed on every allowed attempt.
        """
        messages = build_messages(self.prompts, self.condition, request)
        completion = self.client.complete(messages, response_schema())
        return Reply(
            completion.content,
            completion.attempts,
            completion.prompt_tokens,
            completion.completion_tokens,
        )
