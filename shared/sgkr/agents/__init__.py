"""Serving coding agents: the answer text (:mod:`~sgkr.agents.answer`) and the MCP
server (:mod:`~sgkr.agents.server`)."""
