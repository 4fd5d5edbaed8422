"""A recorded session's rows beside its trajectory: the user's turns, each hidden intent's status (with
the turn and step that settled it) and the session's own facts (how it ended, who played the user, the
checklist verdicts it carried), as the ingest path stores them and the pages read them."""

from harness.results import SessionInfo
from trajectories.models import IntentStatus, Trajectory, UserTurn


def store_session(trajectory: Trajectory, session: SessionInfo) -> None:
    UserTurn.objects.bulk_create(
        UserTurn(
            trajectory=trajectory,
            number=t.number,
            message=t.message,
            after_step=t.after_step,
            agent_message=t.agent_message,
        )  # fmt: skip
        for t in session.turns
    )
    IntentStatus.objects.bulk_create(
        IntentStatus(trajectory=trajectory, intent_id=i.intent_id, status=i.status, turn=i.turn, step=i.step)
        for i in session.intents
    )
    trajectory.session = {
        "ended_by": session.ended_by,
        "max_user_turns": session.max_user_turns,
        "user_simulator": session.user_simulator,
        "checklist": session.checklist,
    }
    trajectory.save(update_fields=["session"])
