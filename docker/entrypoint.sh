#!/bin/sh
# The images' entry point, run by tini (PID 1: it forwards the engine's SIGTERM to the worker and reaps the
# processes that tasks and Spark leave behind).
#
# 1. Installs the plug-in wheels of $KCONNECT_PLUGIN_WHEELS (default /opt/kconnect/plugin-wheels; mount a
#    directory there). The directory plays the part of Kafka Connect's plugin.path: it holds the plug-ins
#    and whatever they need that the image lacks; what the image already has satisfies the rest. They go
#    into /opt/kconnect/plugins, which the image's Python reads after its own packages (a .pth file), so a
#    plug-in cannot replace a package the worker runs on.
# 2. Replaces itself with the command: a kconnect subcommand (`worker`, the default, is a distributed
#    worker configured by KCONNECT_* variables; `standalone FILE...`; `mirror mm2.properties`; `health`;
#    `ctl ...`; `new connector NAME`), or any program.
set -eu

plugin_wheels="${KCONNECT_PLUGIN_WHEELS:-/opt/kconnect/plugin-wheels}"
plugin_prefix=/opt/kconnect/plugins

install_plugin_wheels() {
    set -- "$plugin_wheels"/*.whl
    # An unmatched glob stays as written: no wheels, nothing to do.
    [ -e "$1" ] || return 0
    echo "Installing the plug-in wheels of $plugin_wheels into $plugin_prefix" >&2
    python -m pip install --quiet --no-index --find-links "$plugin_wheels" --prefix "$plugin_prefix" "$@"
}

install_plugin_wheels

if [ "$#" -eq 0 ]; then
    set -- worker
fi
case "$1" in
    worker | standalone | mirror | health | ctl | kafka | new | -*) exec kconnect "$@" ;;
    *) exec "$@" ;;
esac
