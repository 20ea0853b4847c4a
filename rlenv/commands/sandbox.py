"""``rlenv sandbox build|doctor``: build the code-sandbox image, and diagnose the set-up."""

import argparse
import logging

NAME = "sandbox"
HELP = "build the Docker image for code execution, or diagnose the sandbox set-up"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="sandbox_command", required=True)
    build = sub.add_parser("build", help="build the sandbox image (skipped when it is up to date)",
                           description="Build rlenv-sandbox:<recipe hash>. Default recipe: docker build of the "
                                       "Dockerfile (FROM python:3.12-slim, needs a registry); --offline: "
                                       "debootstrap + docker import (needs root and debootstrap, no registry).")
    recipe = build.add_mutually_exclusive_group()
    recipe.add_argument("--offline", action="store_true", help="debootstrap a Debian rootfs and docker import it")
    recipe.add_argument("--dockerfile", action="store_true", help="docker build the Dockerfile (the default)")
    build.add_argument("--base", help="FROM image of the Dockerfile recipe (default python:3.12-slim)")
    build.add_argument("--mirror", help="Debian mirror of the offline recipe (default: the one apt uses)")
    build.add_argument("--tag", help="image name:tag to build (default: rlenv-sandbox:<recipe hash>)")
    build.add_argument("--force", action="store_true", help="rebuild even if the image exists")
    doctor = sub.add_parser("doctor", help="say what the sandbox is missing (engine, permissions, image)")
    doctor.add_argument("--image", help="image to check (default: rlenv-sandbox:<recipe hash>)")
    doctor.add_argument("--no-run", action="store_true", help="skip running a test job")
    doctor.add_argument("--clean", action="store_true", help="remove containers leaked by dead processes")


def run(args: argparse.Namespace) -> int:
    if args.sandbox_command == "build":
        return _build(args)
    return _doctor(args)


def _build(args: argparse.Namespace) -> int:
    import docker

    from rlenv.sandbox import build

    logging.getLogger("sandbox").setLevel(logging.INFO)
    try:
        client = docker.from_env(timeout=600)
        client.ping()
    except Exception as exc:
        print(f"rlenv sandbox build: no Docker engine: {exc} (see `rlenv sandbox doctor`)")
        return 1
    try:
        if args.offline:
            result = build.build_offline(client, args.tag, mirror=args.mirror, force=args.force)
        else:
            result = build.build_dockerfile(client, args.tag, base=args.base, force=args.force)
    except build.BuildError as exc:
        print(f"rlenv sandbox build: {exc}")
        return 1
    verb = "built" if result.built else "up to date (use --force to rebuild):"
    print(f"{verb} {result.image} [{result.recipe} recipe, {result.seconds:.1f} s]")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from rlenv.sandbox import doctor

    if args.clean:
        try:
            print(f"removed {doctor.clean()} leaked sandbox containers")
        except Exception as exc:
            print(f"could not clean: {exc}")
            return 1
    checks = doctor.diagnose(args.image, run_job=not args.no_run)
    marks = {True: "ok     ", False: "MISSING", None: "info   "}
    for check in checks:
        print(f"{marks[check.ok]} {check.name}: {check.detail}")
    failed = [c for c in checks if c.ok is False]
    print("the sandbox is ready" if not failed else f"{len(failed)} problem(s): fix them and run `rlenv sandbox doctor` again")
    return 1 if failed else 0
