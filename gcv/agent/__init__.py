"""The verifier inside an LLM agent: ``gcv mcp``, a Model Context Protocol server.

Section 3 (Figure 2) runs the verifier in a loop with a language model: the
Interpreter maps each utterance to operations, the engine updates D_t, the
Renderer writes the change back into the model's context, and a candidate
continuation is verified before it is used.  ``gcv mcp`` offers that loop to
any agent host as MCP tools over durable sessions (:mod:`gcv.store`), one store
per session in one folder: :mod:`gcv.agent.folder` (the folder, confined),
:mod:`gcv.agent.tools` (the tools, their schemas and errors, transport-free),
:mod:`gcv.agent.server` (the binding to the ``mcp`` SDK) and
:mod:`gcv.agent.command` (the command).  See docs/agents.md.
"""
