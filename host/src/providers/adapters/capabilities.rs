//! The capability set each provider can honestly claim. A flag is true only when the provider
//! itself does the thing natively; nothing an adapter could fake from text is claimed.

use agent_session_wire::interaction::Capabilities;

/// Codex app-server (checked against codex 0.169.0, `tests/fake-models/README.md`).
pub fn codex() -> Capabilities {
    Capabilities {
        // `turn/start` takes `collaborationMode: {mode: "plan"}` (with the `experimentalApi`
        // capability at `initialize`); the mode is sticky until a turn sends another one, and
        // `thread/settings/updated` / the `thread/resume` answer report it.
        supports_plan_mode: true,
        // No read-only question-answering mode exists among Codex collaboration modes.
        supports_ask_mode: false,
        // `turn/plan/updated` carries `{step, status}` lists natively, but only outside plan
        // mode and only with `[tools.update_plan] enabled = true` in the codex config (in plan
        // mode codex refuses `update_plan`). The config in `tests/fake-models/README.md` sets it;
        // whatever spawns codex must too, or no steps come. A plan turn carries its plan as
        // prose (below), never as steps.
        supports_structured_plan_updates: true,
        // `item/plan/delta` streams the body of a `<proposed_plan>` block natively (tags
        // stripped, kept out of `item/agentMessage/delta`).
        supports_plan_text_streaming: true,
        // `item/tool/requestUserInput` asks 1-3 structured questions with options.
        supports_structured_user_input: true,
        // Questions with `isOther` (or without options) take free text.
        supports_freeform_user_input: true,
        // Codex has no ExitPlanMode request: leaving plan mode is the client starting the
        // next turn in another collaboration mode. The completed plan item is promoted to a
        // proposed plan by the adapter (source `synthesized`), which is not the same thing.
        supports_exit_plan_mode: false,
    }
}

/// Claude Agent SDK.
pub fn claude() -> Capabilities {
    Capabilities {
        // `permissionMode: "plan"`.
        supports_plan_mode: true,
        // Permission modes are default/acceptEdits/bypassPermissions/plan: no ask mode.
        supports_ask_mode: false,
        // Claude emits no structured plan steps; steps parsed from the ExitPlanMode markdown
        // are marked `synthesized` and do not make this true.
        supports_structured_plan_updates: false,
        // The plan arrives whole in the ExitPlanMode input; there is no plan-text stream.
        supports_plan_text_streaming: false,
        // The AskUserQuestion tool: 1-4 questions with 2-4 options, multiSelect.
        supports_structured_user_input: true,
        // Claude's question UI always offers "Other" with free text.
        supports_freeform_user_input: true,
        // The ExitPlanMode tool proposes the plan and asks to leave plan mode.
        supports_exit_plan_mode: true,
    }
}

/// Cursor over ACP (the "Cursor profile"): modes and plain text only. ACP defines a `plan`
/// session update, but the Cursor profile does not send it, so structured plan updates are not
/// claimed; an arriving `plan` update is still mapped (source `native`).
pub fn cursor() -> Capabilities {
    Capabilities {
        // `availableModes` includes `plan`; `current_mode_update` reports it.
        supports_plan_mode: true,
        // `availableModes` includes `ask`.
        supports_ask_mode: true,
        supports_structured_plan_updates: false,
        // Message chunks are ordinary assistant text; nothing marks plan prose.
        supports_plan_text_streaming: false,
        // ACP has no user-input request; `session/request_permission` is an approval.
        supports_structured_user_input: false,
        supports_freeform_user_input: false,
        // No exit-plan-mode request; the client switches modes with `session/set_mode`.
        supports_exit_plan_mode: false,
    }
}

/// Any real ACP agent (`--agent acp`) before its `session/new` answer: what ACP itself offers.
/// Plan and ask mode follow the modes the agent advertises (read from `session/new`); an
/// exit-plan-mode is claimed once the agent asks to approve a plan (a `switch_mode` call's
/// permission, as `claude-code-acp`'s ExitPlanMode does).
pub fn acp() -> Capabilities {
    Capabilities {
        supports_plan_mode: false,
        supports_ask_mode: false,
        // ACP's `plan` update exists, but no agent here sends it (`claude-code-acp` did not).
        supports_structured_plan_updates: false,
        supports_plan_text_streaming: false,
        // ACP has no user-input request (`claude-code-acp` disables AskUserQuestion).
        supports_structured_user_input: false,
        supports_freeform_user_input: false,
        supports_exit_plan_mode: false,
    }
}
