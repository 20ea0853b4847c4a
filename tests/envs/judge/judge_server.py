"""A deterministic judge server: a test double of an LLM judge behind an OpenAI-compatible API.

No tiny local model can judge, so the verdict logic is tested against this double: a real FastAPI
app (served by uvicorn on 127.0.0.1 by the tests, by the benchmark) that answers ``/v1/models``,
``/v1/chat/completions`` and ``/v1/completions`` like a server would, with a verdict computed from
the prompt it receives. It reads the prompt as a judge model would: the delimited values between
their tags, unescaped. The served model's name picks the judge's behaviour:

* ``fair`` — quality of a text = occurrences of "good" minus occurrences of "bad"; a score is
  ``5 + quality`` clamped to the scale; a rubric criterion scores 10 when the candidate contains the
  criterion's name, else 1; a reference-guided score is 10 when the candidate equals the reference,
  else 1; pairwise and ranking verdicts order by quality (ties by position);
* ``first`` — as ``fair``, but pairwise and ranking verdicts always prefer the first candidate shown
  (a maximal position bias);
* ``longer`` — prefers the longer text (a maximal length bias); scores are its word count, clamped;
* ``gullible`` — as ``fair``, but obeys a ``<score>N</score>`` or ``<winner>X</winner>`` anywhere in
  the raw prompt (the hole of a judge that reads an undelimited candidate);
* ``garbage`` — answers prose without a verdict.

A prompt that is not a judge prompt (a policy's) gets "A good answer.". ``/stats`` returns the number of judge requests answered and the most answered at once
(``max_in_flight``); ``delay_s`` makes each answer take that long. Answers report ``usage`` with one
token per whitespace-separated word.
"""


import asyncio
import html
import re

MODELS = ("fair", "first", "longer", "gullible", "garbage")


def _values(prompt: str, tag: str) -> list[str]:
    return [html.unescape(v.strip("\n")) for v in re.findall(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.S)]


def quality(text: str) -> int:
    """The ``fair`` judge's quality of ``text``."""
    lowered = text.lower()
    return lowered.count("good") - lowered.count("bad")


def _merit(mode: str, text: str) -> int:
    return len(text.split()) if mode == "longer" else quality(text)


def verdict(mode: str, prompt: str) -> str:
    """The judge's reply to ``prompt``."""
    if mode == "garbage":
        return "I think this answer is rather fine overall, thank you."
    if mode == "gullible":
        start, end = prompt.find("<candidate"), prompt.rfind("</candidate")
        planted = re.search(r"<(score|winner)>(\w+)</\1>", prompt[start:end])
        if planted:
            return planted.group(0)
    scale = re.search(r"from (-?[\d.]+) to (-?[\d.]+)", prompt)
    low, high = (float(scale.group(1)), float(scale.group(2))) if scale else (1.0, 10.0)
    clamp = lambda x: max(low, min(high, x))  # noqa: E731
    ranked = [(tag, text) for tag in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for text in _values(prompt, f"candidate_{tag}")]
    if ranked and "<candidate_A>" in prompt and "<ranking>" in prompt.split("</candidate_")[-1]:
        order = list(range(len(ranked))) if mode == "first" else \
            sorted(range(len(ranked)), key=lambda i: -_merit(mode, ranked[i][1]))
        return "<ranking>" + " > ".join(ranked[i][0] for i in order) + "</ranking>"
    if len(ranked) == 2:
        (_, a), (_, b) = ranked
        if mode == "first":
            return "<winner>A</winner>"
        ma, mb = _merit(mode, a), _merit(mode, b)
        return f"<winner>{'A' if ma > mb else 'B' if mb > ma else 'tie'}</winner>"
    candidates = _values(prompt, "candidate")
    if not candidates:  # not a judge prompt: answer as a policy
        return "A good answer."
    candidate = candidates[0]
    criteria = _values(prompt, "criteria")
    if criteria:
        names = re.findall(r"^- (\w+) \(", criteria[0], re.M)
        return "{" + ", ".join(f'"{n}": {10 if n in candidate else 1}' for n in names) + "}"
    reference = _values(prompt, "reference")
    if reference:
        return f"<score>{10 if candidate.strip() == reference[0].strip() else 1}</score>"
    return f"<score>{clamp(5 + _merit(mode, candidate) if mode != 'longer' else _merit(mode, candidate)):g}</score>"


def usage(prompt: str, reply: str) -> dict:
    """The double's token counts: one token per whitespace-separated word."""
    prompt_tokens, completion_tokens = len(prompt.split()), len(reply.split())
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


def judge_app(delay_s: float = 0.0):
    """The FastAPI app of the judge double."""
    from fastapi import FastAPI, Request

    app = FastAPI()
    stats = {"requests": 0, "in_flight": 0, "max_in_flight": 0}

    @app.get("/v1/models")
    def models():
        return {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "test"} for name in MODELS]}

    @app.get("/stats")
    def get_stats():
        return stats

    async def answer(body: dict, prompt: str) -> str:
        stats["requests"] += 1
        stats["in_flight"] += 1
        stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
        try:
            if delay_s:
                await asyncio.sleep(delay_s)
            return verdict(body["model"], prompt)
        finally:
            stats["in_flight"] -= 1

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        prompt = "\n\n".join(m["content"] for m in body["messages"])
        text = await answer(body, prompt)
        choices = [{"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                   for i in range(body.get("n", 1))]
        return {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"], "choices": choices,
                "usage": usage(prompt, text)}

    @app.post("/v1/completions")
    async def completions(request: Request):
        body = await request.json()
        text = await answer(body, body["prompt"])
        choices = [{"index": i, "text": text, "finish_reason": "stop", "logprobs": None} for i in range(body.get("n", 1))]
        return {"id": "x", "object": "text_completion", "created": 0, "model": body["model"], "choices": choices,
                "usage": usage(body["prompt"], text)}

    return app
