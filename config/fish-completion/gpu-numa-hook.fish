# fish completion for gpu-numa-hook: subcommands and their options.
set -l subcommands prestart createRuntime explain topology check wait install config status

complete -c gpu-numa-hook -f
complete -c gpu-numa-hook -l config -r -F -d 'Configuration file'
complete -c gpu-numa-hook -l host-root -r -a '(__fish_complete_directories)' -d 'Resolve every host path beneath DIR'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -l help -d 'Show help'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -l version -d 'Show the version'

complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a prestart -d 'Hook mode, prestart stage (OCI state on stdin)'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a createRuntime -d 'Hook mode, createRuntime stage (OCI state on stdin)'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a explain -d "Show the hook's decision for a bundle"
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a topology -d 'Show the GPUs and their NUMA nodes'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a check -d 'Find cgroups lacking memory nodes'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a wait -d 'Block until every GPU memory node is usable'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a install -d 'Register the hook or the shim with an engine'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a config -d 'Check the configuration file (config check)'
complete -c gpu-numa-hook -n "not __fish_seen_subcommand_from $subcommands" -a status -d 'Is this node protected?'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from config; and not __fish_seen_subcommand_from check' -a check -d 'Validate the config file'

complete -c gpu-numa-hook -n '__fish_seen_subcommand_from explain' -l bundle -r -a '(__fish_complete_directories)' -d 'Bundle directory'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from explain' -l pid -x -d 'Pid of the running container'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from explain topology check wait install config status' -l json -d 'One JSON object'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from topology' -l refresh -d 'Ask NVML and write the NVML cache'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from topology' -l nvml-library -r -F -d 'libnvidia-ml.so.1 for --refresh'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from check' -l fix -d 'Widen stale cgroups'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from check' -l fix-if-configured -d 'Fix only when the config says so'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from check' -l prometheus -r -F -d 'node_exporter textfile'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from wait' -l timeout -x -d 'Give up after DURATION (90s, 5m, 1500ms, 1h)'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l runtime -x -a 'docker containerd podman crio crio-runtime nvidia-legacy nri crio-nri' -d 'The engine'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l runtime-config -r -F -d "The engine's file or hooks directory"
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l runtime-path -r -F -d 'Where gpu-numa-runtime is'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l hook-path -r -F -d 'Where gpu-numa-hook is'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l set-default -d 'Make gpu-numa the default runtime'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l dry-run -d 'Print the diff, write nothing'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l uninstall -d 'Remove exactly what install adds'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l containerd-version -x -d 'containerd MAJOR.MINOR'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l set-as-default -d "nvidia-ctk's spelling of --set-default"
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l all -d 'With --uninstall: every engine install-state.json records'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l boot-gate -x -a 'docker containerd kubelet crio' -d "The wait drop-in for a service"
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l nri-pre-registered -d 'nri: also install the plugin the runtime starts'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l nri-plugin-dir -r -a '(__fish_complete_directories)' -d "nri: the runtime's plugin directory"
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from install' -l nri-plugin-path -r -F -d 'nri: where gpu-numa-nri is'
complete -c gpu-numa-hook -n '__fish_seen_subcommand_from status' -l refusals -x -d "How many of the log's last refusals to show"
