"""harness.results.result_files on the shapes each agent family writes (formats.md 2.4, 5.1-5.3): messages.json
tool calls of Claude (content blocks), OpenAI (Responses items with shell calls) and Qwen (<tool_call>
text), usage.json counters in each provider's naming, and Git LFS pointers."""

from harness.results import result_files


def test_claude_bash_and_editor_rounds_skip_computer_turns():
    messages = [
        {"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "a", "name": "bash", "input": {"command": "pwd"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "/home/user"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "b", "name": "computer",
                                           "input": {"action": "screenshot"}}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "str_replace_based_edit_tool",
                                           "input": {"command": "view", "path": "/home/user/notes.txt"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "1\tmeeting at 3"}]},
    ]  # fmt: skip
    rounds = result_files.tool_rounds(messages)
    assert [[(c.tool, c.command, c.output) for c in r] for r in rounds] == [
        [("bash", "pwd", "/home/user")],
        [("editor", "view /home/user/notes.txt", "1\tmeeting at 3")],
    ]


def test_openai_shell_calls_carry_their_exit_code():
    items = [
        {"type": "reasoning", "summary": []},
        {"type": "shell_call", "call_id": "s1", "action": {"commands": ["ls /data", "wc -l x"]}},
        {"type": "shell_call_output", "call_id": "s1",
         "output": [{"stdout": "mail.sqlite\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 2}}]},
    ]  # fmt: skip
    (round_,) = result_files.tool_rounds(items)
    assert round_[0].command == "ls /data\nwc -l x" and round_[0].output == "mail.sqlite\n"
    assert round_[0].exit_status == "2"


def test_qwen_tool_call_text_and_tool_response():
    messages = [
        {"role": "assistant", "content": "Check files.\n<tool_call>\n<function=bash>\n<parameter=command>\nls ~\n"
                                         "</parameter>\n</function>\n</tool_call>"},
        {"role": "user", "content": [
            {"type": "text", "text": "<tool_response>\nDocuments\nDownloads\n</tool_response>"}]},
        {"role": "assistant", "content": "<tool_call>\n<function=computer_use>\n<parameter=action>left_click"
                                         "</parameter>\n</function>\n</tool_call>"},
    ]  # fmt: skip
    (round_,) = result_files.tool_rounds(messages)
    assert round_[0].command == "ls ~" and round_[0].output == "Documents\nDownloads"


def test_tool_arguments_nested_deep_are_left_out_not_a_crash():
    # Arguments are JSON inside a string of the result file; 20,000 levels deep used to take the
    # standard parser to Python's recursion limit and the import with it.
    deep = '{"command": "ls", "x": ' + "[" * 20_000 + "]" * 20_000 + "}"
    shallow = '{"command": "ls"}'
    for arguments in (deep, shallow):
        items = [{"type": "function_call", "name": "bash", "call_id": "c1", "arguments": arguments}]
        chat = [
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": arguments}}]}
        ]
        commands = [r[0].command for r in result_files.tool_rounds(items) + result_files.tool_rounds(chat)]
        assert commands == (["", ""] if arguments is deep else ["ls", "ls"])  # the call kept, unread


def test_usage_by_kind_in_each_naming():
    anthropic = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 100,
                 "cache_read_input_tokens": 1000}  # fmt: skip
    assert result_files.usage_by_kind(anthropic) == {"input": 1110, "output": 5, "cache_creation": 100,
                                                     "cache_read": 1000}  # fmt: skip
    openai = {"input_tokens": 500, "input_tokens_details": {"cached_tokens": 400}, "output_tokens": 20,
              "output_tokens_details": {"reasoning_tokens": 15}, "total_tokens": 520}  # fmt: skip
    assert result_files.usage_by_kind(openai) == {"input": 500, "output": 20, "cache_creation": 0, "cache_read": 400}
    per_model = {"claude-opus-4-6": anthropic, "claude-haiku-4-5": {"input_tokens": 1, "output_tokens": 1}}
    assert result_files.usage_by_kind(per_model)["input"] == 1111
    gemini = {"prompt_token_count": 300, "cached_content_token_count": 200, "candidates_token_count": 9}
    assert result_files.usage_by_kind(gemini) == {"input": 300, "output": 9, "cache_creation": 0, "cache_read": 200}


def test_lfs_pointer_detection(tmp_path):
    pointer = tmp_path / "step_1.png"
    pointer.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 3\n")
    gap = result_files.screenshot_gap(pointer)
    assert gap.kind == "Git LFS pointer" and "git lfs pull" in gap.problem
    assert result_files.screenshot_gap(tmp_path / "absent.png").kind == "missing screenshot"
