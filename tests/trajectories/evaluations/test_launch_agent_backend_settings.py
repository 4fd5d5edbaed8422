"""Agent settings and the guest's post-boot setup on the admin launch form: validated by the harness's
own checks (its message shown on the form, nothing queued), kept in the run's launch metadata, and the
agent's and guest's protocol recorded in the run's metadata as the CLI records them in bundle.json."""

import pytest
from django.urls import reverse

from leaderboard.models import Run
from tests.evaluation_data import LAUNCH, form_data
from tests.simulators import ProviderSimulator
from tests.simulators.computer_use import qwen_call
from trajectories.evaluations import agent_backend, lifecycle
from trajectories.tasks import run_trajectory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quiet_settings")]
# One task (the conftest's world): each launch here queues one trajectory.
EVAL_TASKS = 1


def test_a_setting_the_agent_does_not_take_is_refused_with_the_harness_message(admin_client, world, queued,
                                                                               monkeypatch):  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    response = admin_client.post(reverse(LAUNCH), form_data(world, agent_type="openai", plan="", display="fit"))
    page = response.content.decode()
    assert response.status_code == 200
    assert "agent openai: display: only the anthropic agent takes it (got agent &#x27;openai&#x27;)" in page
    assert not Run.objects.exists() and queued == []


def test_a_bad_setting_value_is_refused_with_the_harness_message(admin_client, world, queued, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    world["model"].api_model = "claude-sonnet-4-6"
    world["model"].save()
    response = admin_client.post(reverse(LAUNCH), form_data(world, agent_type="anthropic", plan="",
                                                            reasoning_effort="enormous"))  # fmt: skip
    page = response.content.decode()
    assert "agent anthropic:" in page and "enormous" in page
    assert not Run.objects.exists() and queued == []


def test_the_scripted_agent_refuses_model_settings(admin_client, world, queued):
    response = admin_client.post(reverse(LAUNCH), form_data(world, temperature="0.5"))
    assert "temperature: the scripted agent calls no model" in response.content.decode()
    assert not Run.objects.exists()


def test_an_unknown_setup_part_and_a_setup_on_the_fake_guest_are_refused(admin_client, world, queued):
    page = admin_client.post(reverse(LAUNCH), form_data(world, backend="remote", url="http://127.0.0.1:9",
                                                        setup="dns,teleport")).content.decode()  # fmt: skip
    assert "remote backend: --setup: unknown part(s) teleport" in page
    page = admin_client.post(reverse(LAUNCH), form_data(world, setup="dns")).content.decode()
    assert "fake backend: --setup: post-boot setup is for the remote, qemu and docker backends" in page
    page = admin_client.post(reverse(LAUNCH), form_data(world, snapshot_reset="on")).content.decode()
    assert "fake backend: snapshot reset is for the qemu backend only" in page
    assert not Run.objects.exists() and queued == []


def test_default_setup_is_all_on_vm_backends_and_none_elsewhere():
    assert agent_backend.setup_parts("qemu") == agent_backend.setup_parts("docker", "all")
    assert "xrandr" in agent_backend.setup_parts("qemu")
    assert agent_backend.setup_parts("remote") == () and agent_backend.setup_parts("fake") == ()
    assert agent_backend.setup_parts("remote", "dns, xrandr") == ("dns", "xrandr")


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_launched_run_records_its_settings_and_the_agent_and_backend_protocol(admin_client, world, queued):
    """The open-weight agent against the OpenAI-compatible provider simulator on loopback (no GPU server here)."""
    world["model"].api_model = "qwen3-vl"
    world["model"].save()
    stop = "Done.\n" + qwen_call("computer_use", action="terminate", status="success")
    with ProviderSimulator() as sim:
        sim.script = [stop]
        response = admin_client.post(reverse(LAUNCH), form_data(
            world, agent_type="openai_compatible", agent_base_url=sim.openai_url, plan="", max_output_tokens="777",
            temperature="0.3", dual_tool_hint="off", image_drop_chunk="4"))  # fmt: skip
        assert response.status_code == 302, response.content.decode()[:3000]
        run = Run.objects.get()
        assert run.metadata["launch"]["agent_settings"] == {
            "max_output_tokens": 777, "temperature": 0.3, "dual_tool_hint": False, "image_drop_chunk": 4,
        }  # fmt: skip
        assert run_trajectory.run(run.trajectories.get().pk) == "done"
    assert sim.requests[0].body["max_tokens"] == 777 and sim.requests[0].body["temperature"] == 0.3
    run.refresh_from_db()
    protocol = run.metadata["agent_protocol"]
    assert protocol["max_output_tokens"] == 777 and protocol["temperature"] == 0.3
    assert protocol["dual_tool_hint"] is False and protocol["image_drop_chunk"] == 4
    backend = run.metadata["backend_protocol"]
    assert backend["screen_size"] == [1280, 800]
    assert backend["post_boot"] == {"status": "off"} and backend["reset"]
    rerun = lifecycle.rerun(run, "all")
    assert rerun.metadata["launch"]["agent_settings"]["max_output_tokens"] == 777, "a rerun keeps the settings"


def test_extended_thinking_is_a_launch_setting_checked_by_the_harness(admin_client, world, queued, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    world["model"].api_model = "claude-sonnet-4-6"
    world["model"].save()
    too_small = form_data(world, agent_type="anthropic", plan="", thinking="500")
    page = admin_client.post(reverse(LAUNCH), too_small).content.decode()
    assert "thinking budget 500: the API takes at least 1024 tokens" in page
    assert not Run.objects.exists() and queued == []
    admin_client.post(reverse(LAUNCH), form_data(world, agent_type="anthropic", plan="", thinking="4096",
                                                 max_output_tokens=8192, retry_output_tokens=0))  # fmt: skip
    run = Run.objects.get()
    assert run.metadata["launch"]["agent_settings"]["thinking"] == "4096"
    assert len(queued) == 1
