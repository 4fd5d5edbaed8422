"""The dummy agent: declares the task done on its first turn (smoke tests, CI), as upstream's does."""

from harness.agents.base import AgentState


class DummyAgent(AgentState):
    name = "dummy"
    model = "dummy"
    RESPONSE = "dummy agent: marking task DONE"

    def reset(self, task_id: str = "") -> None:
        AgentState.__init__(self)

    def enter_session(self) -> None:
        """Nothing to tell: it answers at once whatever is asked."""

    def resume(self, message: str) -> None:
        self.reset()

    def predict(self, instruction: str, observation: dict) -> tuple[str, list[str]]:
        self.messages.append({"role": "assistant", "content": self.RESPONSE})
        return self.RESPONSE, ["DONE"]
