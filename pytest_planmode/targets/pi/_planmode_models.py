"""What the model-switching translations share (pi-plan-mode-settings.md
§ Auto model switch, § Implementation model and thinking): Pi's model
registry as a host step, the Plan states a trigger needs, and the reading of
one transition back from the call trace.

The log is read from what the extension visibly does and what Pi answered,
each at its virtual instant:

- `auth.start` / `preflight.start`: a `modelRegistry.getApiKeyAndHeaders`
  call (the preflight is the saved-plan implementation's first one, of the
  session's current model);
- `auth.end`: Pi's answer, when it came before the extension did anything
  else; `auth.timeout`: the extension went on (its next call) before the
  answer came, at that instant; `auth.late`: the answer that came after;
- `change.start` / `change.end`: a `pi.setModel` call and how it settled
  (true: accepted, false: refused, a throw); `restore.*` when it is the
  model from before the transition, after a change was accepted;
- `thinking.restore`: a `pi.setThinkingLevel` call after an accepted change;
- `request`: the first `sendUserMessage` (the implementation's first
  request), with the session model at that instant.

Warnings and the error notice are the `warning` / `error` notifications
shown during the transition.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_planmode.contract import planmode_models as contract
from pytest_planmode.hosts.pi import steps as host_steps
from pytest_planmode.targets.pi.translation import ScriptBuilder, answer_index

SETTINGS_FILE = "pi-plan-mode.json"
AUTH_BUDGET_MS = contract.AUTH_BUDGET_MS
#: Virtual time given to the extension after its settings file changes (its
#: watcher's debounce runs on the virtual clock).
WATCH_SETTLE_MS = 500
#: The ready menu's and the fresh screen's item labels (pi-plan-mode's
#: ready menu; the fresh screen's Start).
FRESH_ITEM = "Start fresh and implement"
SAVE_ITEM = "Save for later"
START_ITEM = "Start"
#: An item of the saved-plan menu `/plan` opens while a saved plan exists.
SAVED_PLAN_ITEM = "Show saved plan"
PLAN_TEXT = "1. Inspect the code.\n2. Make the change.\n3. Run the tests."
_GETTERS = ("pi.get", "ui.get")


def key(provider: str, model_id: str) -> str:
    return f"{provider}/{model_id}"


def split(model: str) -> tuple[str, str]:
    provider, _, model_id = model.partition("/")
    return provider, model_id


def _candidates(settings: Mapping[str, Any]) -> Iterable[str]:
    for name in ("planModel", "normalModel"):
        value = settings.get(name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                provider, model_id = item.get("provider"), item.get("modelId")
                if isinstance(provider, str) and isinstance(model_id, str):
                    yield key(provider, model_id)
                    yield key(provider.strip(), model_id.strip())


def behaviour(b: contract.ModelBehaviour | None) -> dict[str, Any]:
    b = b or contract.ModelBehaviour()
    return {
        "resolves": b.resolves,
        "auth": b.auth,
        "authDelay": b.auth_latency_ms,
        "credentials": b.credentials,
        "change": b.change,
        "changeDelay": b.change_latency_ms,
    }


def opening_steps(case: contract.ModelsSwitchInput | contract.ModelsFreshInput) -> list[host_steps.Step]:
    """Pi's registry for the case, an empty settings document (the case's
    settings are written once the trigger's state is reached) and the start
    of the session at the case's thinking level."""
    return [
        registry_step(
            current=case.current_model,
            scoped=case.scoped_models,
            available=case.available_models,
            models=case.models,
            settings=[case.settings],
        ),
        host_steps.WriteFile(root="agent", path=SETTINGS_FILE, content="{}"),
        host_steps.Start(thinking_level=case.thinking_level),
    ]


def registry_step(
    *,
    current: str,
    scoped: list[str],
    available: list[str],
    models: Mapping[str, contract.ModelBehaviour],
    settings: Iterable[Mapping[str, Any]],
) -> host_steps.Models:
    """Pi's registry: every model the case names (it resolves unless its
    behaviour says not), `getAvailable()`, the scope, and how Pi answers."""
    names = [current, *scoped, *available, *models]
    for doc in settings:
        names += list(_candidates(doc))
    catalogue = []
    for name in dict.fromkeys(names):
        provider, model_id = split(name)
        if provider and model_id:
            catalogue.append({"provider": provider, "id": model_id})
    return host_steps.Models(
        catalogue=catalogue,
        behaviour={name: behaviour(models.get(name)) for name in dict.fromkeys(names)},
        # The models the case gives answers for (the others take the
        # defaults): a real Pi authenticates per provider.
        given=list(models),
        available=list(available),
        scoped=list(scoped),
        current=current,
    )


def budget_ms(models: Iterable[contract.ModelBehaviour], candidates: int) -> int:
    """Virtual time after which every answer has come (late ones included)."""
    spent = sum(b.auth_latency_ms + b.change_latency_ms for b in models)
    return spent + AUTH_BUDGET_MS * (candidates + 3) + 1


def settings_content(settings: Mapping[str, Any]) -> str:
    return json.dumps(dict(settings), indent=2)


def ready_steps() -> list[host_steps.Step]:
    """A Plan-mode run in which the model proposes a plan; when it settles,
    the ready menu opens (and stays open for a later answer). The model's
    call answers an LLM call, and Pi emits `context` before each one."""
    return [
        host_steps.AgentStart(prompt="Plan the change."),
        host_steps.Context(),
        host_steps.ToolCall(tool="plan_mode_complete", input={"plan": PLAN_TEXT}, execute=True),
        host_steps.AgentEnd(outcome="completed"),
    ]


def answer(label: str | None) -> host_steps.Ui:
    return host_steps.Ui(answers=[{"cancel": True} if label is None else {"select": label}])


#: A first exchange with the model, before anything switches: Pi writes the
#: session file with the first assistant reply (until then entries stay in
#: memory, and appending one cannot fail).
FIRST_REPLY: tuple[host_steps.Step, ...] = (
    host_steps.AgentStart(prompt="Hello."),
    host_steps.AgentEnd(outcome="completed"),
)


def fault_step(how: str | None) -> host_steps.FailNext:
    """The host condition of a transition that fails after its switch: the
    step after an accepted model change fails. An implementation's handoff
    cannot be delivered (`sendUserMessage`; for a fresh session
    `newSession` is cancelled); any other transition cannot write its
    session entry (`appendEntry`)."""
    call = {"fresh": "newSession", "here": "sendUserMessage", "saved": "sendUserMessage"}.get(
        how or "", "appendEntry"
    )
    return host_steps.FailNext(call=call, after_model_change=True)


def advance_to(builder: ScriptBuilder, at: int) -> None:
    builder.begin(at)
    builder.end()


# ------------------------------------------------------------------ reading


def _model_arg(args: list[Any]) -> str | None:
    first = args[0] if args else None
    if isinstance(first, dict) and isinstance(first.get("provider"), str):
        return key(first["provider"], str(first.get("id")))
    return None


def _acts(entry: Mapping[str, Any]) -> bool:
    """A call the extension made that shows it went on (not a getter)."""
    call = entry.get("call")
    return isinstance(call, str) and not call.startswith(_GETTERS)


@dataclass
class Transition:
    """One transition read back from its window of the call trace."""

    log: list[dict[str, Any]] = field(default_factory=list)
    applied: str | None = None
    warnings: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    elapsed_ms: int | None = 0
    auth_attempts: int = 0
    restored: bool = False
    model: str = ""
    started_at: int | None = None
    ended_at: int | None = None


def read(
    trace: list[dict[str, Any]],
    window: tuple[int, int],
    *,
    t0: int,
    before: str,
    preflight: bool = False,
    to_case: Callable[[int], int] | None = None,
) -> Transition:
    """The transition whose calls are `trace[lo:hi]` (`window`), started at
    host instant `t0` from the session model `before`; Pi's answers to them
    may come later in the trace. Instants are relative to `t0` (or mapped
    by `to_case` when given)."""
    at: Callable[[int], int] = to_case or (lambda t: t - t0)
    out = Transition(model=before)
    rows: list[tuple[int, int, float, dict[str, Any]]] = []

    def add(t: int, index: float, row: dict[str, Any], late: bool = False) -> None:
        rows.append((at(t), 1 if late else 0, index, {"at": at(t), **row}))

    answered: set[int] = set()
    accepted = False
    hung = False
    model = before
    first_auth = True
    request_done = False
    done: list[int] = []
    lo, hi = window
    for i in range(lo, hi):
        entry = trace[i]
        t = int(entry.get("t", 0))
        call = entry.get("call")
        args = list(entry.get("args") or [])
        if call == "modelRegistry.getApiKeyAndHeaders":
            name = key(str(args[0]), str(args[1])) if len(args) > 1 else "?"
            kind = "preflight" if preflight and first_auth and name == before else "auth"
            first_auth = False
            out.auth_attempts += 1
            add(t, i, {"type": f"{kind}.start", "model": name, "outcome": None})
            done.append(t)
            j = answer_index(trace, i, "modelRegistry.getApiKeyAndHeaders", name, answered)
            k = next((k for k in range(i + 1, len(trace)) if _acts(trace[k])), None)
            outcome = trace[j].get("outcome") if j is not None else None
            if j is not None and (k is None or j < k):
                tj = int(trace[j]["t"])
                add(tj, j, {"type": f"{kind}.end", "model": name, "outcome": outcome})
                done.append(tj)
            elif k is not None:
                tk = int(trace[k]["t"])
                add(tk, k - 0.5, {"type": f"{kind}.timeout", "model": name, "outcome": None})
                done.append(tk)
                if j is not None:
                    add(
                        int(trace[j]["t"]),
                        j,
                        {"type": f"{kind}.late", "model": name, "outcome": outcome},
                        True,
                    )
        elif call == "pi.setModel":
            name = _model_arg(args) or "?"
            kind = "restore" if accepted and name == before else "change"
            add(t, i, {"type": f"{kind}.start", "model": name, "outcome": None})
            done.append(t)
            j = answer_index(trace, i, "pi.setModel", name, answered)
            if j is None:
                hung = True
                continue
            settled = trace[j]
            result = "threw" if "threw" in settled else "accepted" if settled.get("value") else "refused"
            tj = int(settled["t"])
            add(tj, j, {"type": f"{kind}.end", "model": name, "outcome": result})
            done.append(tj)
            if result == "accepted":
                accepted = True
                model = name
                if kind == "restore":
                    out.restored = True
                else:
                    out.applied = name
        elif call == "pi.setThinkingLevel" and accepted:
            add(t, i, {"type": "thinking.restore", "model": None, "outcome": str(args[0]) if args else None})
            done.append(t)
        elif call == "ui.notify" and args:
            level = args[1] if len(args) > 1 and args[1] else "info"
            if level == "warning":
                out.warnings.append({"message": str(args[0])})
                done.append(t)
            elif level == "error" and out.error is None:
                out.error = str(args[0])
                done.append(t)
        elif call == "pi.sendUserMessage" and not request_done:
            request_done = True
            add(t, i, {"type": "request", "model": _model_at(trace, i, before), "outcome": None})
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    out.log = [row for *_, row in rows]
    out.model = model
    begin = at(t0)
    out.ended_at = None if hung else (at(max(done)) if done else begin)
    out.elapsed_ms = None if out.ended_at is None else out.ended_at - begin
    starts = [r["at"] for r in out.log if r["type"].endswith(".start")]
    out.started_at = min(starts) if starts else None
    return out


def _model_at(trace: list[dict[str, Any]], index: int, fallback: str) -> str:
    """The session model when the entry at `index` was recorded."""
    model = fallback
    for entry in trace[:index]:
        if entry.get("answer") == "pi.setModel" and entry.get("value"):
            model = str(entry.get("model"))
    return model


# ------------------------------------------------------- what Pi cannot show


def beyond_pi(
    *,
    current: str | None,
    available: Iterable[str],
    models: Mapping[str, contract.ModelBehaviour],
    settings: Iterable[Mapping[str, Any]],
    chains: Iterable[str] = ("planModel", "normalModel"),
) -> str | None:
    """Why Pi cannot give the answers the case scripts (None: it can). A
    case may give each model answers of its own; Pi does not:

    - it authenticates per provider, so the models of one provider that the
      case's transitions may authenticate or switch to (the candidates of the
      directions it takes, and `current` when it is restored) answer alike (a
      model the case gives no answers for takes the defaults);
    - it refuses a model change only for a provider without a key, at once,
      and never lists such a model as available;
    - a failing credential lookup answers `ok: false`, it never throws (a
      throw after the budget is never seen by the extension).
    """
    listed = set(available)
    names: list[str] = [current] if current else []
    for doc in settings:
        names += list(_candidates({name: doc.get(name) for name in chains}))
    by_provider: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name in dict.fromkeys(names):
        provider, model_id = split(name)
        if provider and model_id:
            answers = behaviour(models.get(name))
            answers.pop("resolves")
            by_provider.setdefault(provider, []).append((name, answers))
    for provider, rows in by_provider.items():
        first, answers = rows[0]
        for other, theirs in rows[1:]:
            if theirs != answers:
                return (
                    f"Pi authenticates per provider: the case answers {first} and {other} "
                    f"(both of provider {provider}) differently"
                )
    for name, b in models.items():
        if b.change == "refuse" and (name in listed or b.change_latency_ms > 0):
            return (
                f"Pi refuses a model change ({name}) only for a provider without a key, at once, "
                "and never lists such a model as available; the case's refusal is not that"
            )
        if b.auth == "throw" and b.credentials and b.auth_latency_ms < AUTH_BUDGET_MS:
            return (
                f"Pi's authentication of {name} never throws (a failing credential lookup "
                "answers ok: false); the case has it throw within the budget"
            )
    return None
