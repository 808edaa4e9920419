//! The TurnLens extension for Zed: it only tells Zed how to start `turnlens serve` (found on
//! the PATH of the project's shell) and hands it the `lsp.turnlens` settings of settings.json.

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

struct TurnLens;

impl zed::Extension for TurnLens {
    fn new() -> Self {
        TurnLens
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        // `lsp.turnlens.binary.path` in settings.json wins; else `turnlens` on PATH.
        let configured = LspSettings::for_worktree("turnlens", worktree)
            .ok()
            .and_then(|settings| settings.binary)
            .and_then(|binary| binary.path);
        let command = match configured.or_else(|| worktree.which("turnlens")) {
            Some(path) => path,
            None => {
                return Err("`turnlens` is not on PATH: install it (docs/editors/install.md) or set \
                            lsp.turnlens.binary.path in settings.json"
                    .to_string())
            }
        };
        Ok(zed::Command {
            command,
            args: vec!["serve".to_string()],
            env: worktree.shell_env(),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        Ok(LspSettings::for_worktree("turnlens", worktree)
            .ok()
            .and_then(|settings| settings.initialization_options))
    }

    fn language_server_workspace_configuration(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        Ok(LspSettings::for_worktree("turnlens", worktree)
            .ok()
            .and_then(|settings| settings.settings))
    }
}

zed::register_extension!(TurnLens);
