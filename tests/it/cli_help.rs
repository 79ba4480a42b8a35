//! `--help` teaches: every subcommand and every option of the command line says what it is
//! for (the project's interface standard). A flag added without a doc comment fails here,
//! naming the command path and the flag.

use clap::CommandFactory;

fn undocumented(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        // A value list documents itself when every value has its own help (`--elevation`).
        let values_documented = !arg.get_possible_values().is_empty()
            && arg
                .get_possible_values()
                .iter()
                .all(|v| v.get_help().is_some());
        if arg.get_help().is_none() && arg.get_long_help().is_none() && !values_documented {
            out.push(format!("{path} --{}", arg.get_long().unwrap_or(id)));
        }
    }
    for sub in cmd.get_subcommands() {
        let sub_path = format!("{path} {}", sub.get_name());
        if sub.get_about().is_none() && sub.get_long_about().is_none() {
            out.push(format!("{sub_path} (the subcommand itself)"));
        }
        undocumented(sub, &sub_path, out);
    }
}

#[test]
fn every_subcommand_and_option_has_help_text() {
    let cmd = staffwork::cli::Cli::command();
    let mut missing = Vec::new();
    undocumented(&cmd, "staffwork", &mut missing);
    assert!(
        missing.is_empty(),
        "{} options or subcommands have no help text (add a `///` doc comment):\n{}",
        missing.len(),
        missing.join("\n")
    );
}
