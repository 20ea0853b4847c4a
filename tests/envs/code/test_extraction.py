import pytest

from rlenv.envs.code.extraction import defines_function, extract_code, fenced_blocks


def test_python_fence_wins_over_other_languages():
    text = "Run:\n```bash\npip install x\n```\nThen:\n```python\nprint(1)\n```\nOutput:\n```\n1\n```\n"
    assert extract_code(text) == "print(1)"


def test_untagged_fence_when_no_python_tag():
    assert extract_code("Here:\n```\ndef f():\n    return 2\n```\n") == "def f():\n    return 2"


def test_other_language_fence_as_last_resort():
    assert extract_code("```js\nconsole.log(1)\n```") == "console.log(1)"


@pytest.mark.parametrize("block,expected", [("last", "b = 2"), ("first", "a = 1"), ("longest", "c = 333333")])
def test_block_choice(block, expected):
    text = "```python\na = 1\n```\n```py\nc = 333333\n```\n```python3\nb = 2\n```"
    assert extract_code(text, block) == expected


def test_unterminated_fence_runs_to_the_end():
    assert extract_code("Sure!\n```python\ndef f():\n    return 1\n") == "def f():\n    return 1"


def test_tilde_fences_and_longer_fences():
    assert extract_code("~~~python\nx = 1\n~~~") == "x = 1"
    assert extract_code("````python\ns = '```'\n````") == "s = '```'"


def test_raw_text_keeps_its_indentation():
    assert extract_code("    return a + b\n\n") == "    return a + b"


@pytest.mark.parametrize("text", ["", "   \n\t", "```python\n\n```", "```python\n   \n"])
def test_no_code_is_none(text):
    assert extract_code(text) is None


def test_unknown_block_choice_is_refused():
    with pytest.raises(ValueError, match="block must be one of"):
        extract_code("x", "middle")


def test_fenced_blocks_lists_tags_and_code():
    assert fenced_blocks("```Python\nx\n```\ntext\n```\ny\n```") == [("python", "x\n"), ("", "y\n")]


def test_defines_function():
    assert defines_function("import math\ndef f(x):\n    return x\n", "f")
    assert defines_function("class f:\n    pass\n", "f")
    assert not defines_function("def g():\n    def f():\n        pass\n", "f")
    assert not defines_function("    return x", "f")  # a body does not parse on its own
