"""The agent contract the loop drives: ``reset()``, then ``predict(instruction, observation)`` ->
``(response text, [actions])``, where an action is a pyautogui snippet or WAIT / DONE / FAIL. Agents
that talk back (every agent here) also take ``resume(message)``: a session's next user turn goes on in
the same conversation, the user's message being the next thing the model reads."""

from typing import Protocol, runtime_checkable


class AgentError(RuntimeError):
    pass


@runtime_checkable
class Agent(Protocol):
    name: str
    model: str

    def reset(self, task_id: str = "") -> None: ...

    def predict(self, instruction: str, observation: dict) -> tuple[str, list[str]]:
        """``observation`` holds ``screenshot`` (PNG bytes of the current screen), ``recent_screenshots``
        (the screenshot window, oldest first), ``screen_size`` and ``turn`` (1-based)."""
        ...


@runtime_checkable
class TalkingAgent(Agent, Protocol):
    """An agent that keeps one conversation across a session's user turns."""

    def enter_session(self) -> None:
        """From now on the user is at hand: the agent is told it may ask them a focused question."""
        ...

    def resume(self, message: str) -> None:
        """The next user turn of the same session: keep the conversation, read ``message`` next, and
        start a fresh record (messages, usage, tool commands) for this turn."""
        ...


class AgentState:
    """What every agent keeps and the recorder writes: the conversation (images stripped) and token
    counts. ``pending_tool_round`` says the last turn ran tools only and the model is owed a reply;
    ``tool_commands`` lists the shell commands and file edits it ran since its reset (what a session's
    simulated user reads beside the GUI actions)."""

    def __init__(self):
        self.messages: list[dict] = []
        self.tool_commands: list[str] = []
        self.total_usage: dict[str, int] = {}
        self.pending_tool_round = False
        self.user_message = ""  # the user's reply a resumed conversation reads next ("" once sent)

    def begin_turn_record(self, message: str) -> None:
        """A resumed conversation's fresh record for the new user turn, the user's message to send."""
        AgentState.__init__(self)
        self.user_message = message

    def add_usage(self, **counts: int) -> None:
        for key, value in counts.items():
            self.total_usage[key] = self.total_usage.get(key, 0) + int(value or 0)
