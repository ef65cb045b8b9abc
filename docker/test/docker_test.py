#!/usr/bin/env python3
"""`make docker-test`: build docker/Dockerfile with a real container engine and check the image.

Engine: `docker` when its daemon answers (`docker info`), otherwise Debian's podman with runc
(the Makefile installs podman, runc and mmdebstrap then). LERIX_CONTAINER_ENGINE=docker|podman
forces one. With podman nothing is pulled: the two base images the Dockerfile names are made
locally once and kept in podman's store (see base_images.sh); with docker they are pulled.

Phases, each timed:
  base images   debian:bookworm-slim and the swift:<v>-bookworm stand-in (podman; cached)
  build         docker/Dockerfile, as `docker build -f docker/Dockerfile .` does
  libraries     every library the binary needs resolves in the image (ldd), and each one it
                names itself (ELF DT_NEEDED) comes from a package the runtime stage names or the
                base image already has: one that arrives only as another package's dependency,
                as libssl3 once did by way of curl, fails
  serve         /healthz, a check, a rule change, the check again, a 304 with its ETag; the
                process runs as the image's non-root user
  scenarios     `scenarios` (the bundled suite in the image's working folder) all green
  compose       the two services of docker/compose.yaml as compose runs them, by hand: a state
                volume, the gateway first, the server once the gateway is healthy; a blocking change
                on the server is delivered by the push-gateway container; the rule survives
                replacing the server container (a new container on the same volume)

Containers run with the host's network (the engine's own networks are not available on every
machine this runs on), so every listener is moved to 127.0.0.1 and a port of LERIX_DOCKER_PORTS
(default 31100-31199); compose's service names resolve through --add-host. Every container and
the volume carry the prefix lerix-mock-test- and are removed on exit; the image lerix-mock-test
stays, for the layer cache of the next run.
"""

import json
import os
import re
import shlex
import signal
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX = "lerix-mock-test-"
IMAGE = "localhost/lerix-mock-test:latest"
VOLUME = PREFIX + "state"
NONROOT_UID = "10001"
SWIFT_TOKEN = "8f1e3c9b0a4d7e2f6c5b8a9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b"
ANDROID_TOKEN = "android-token-docker-test"


class Failure(Exception):
    pass


def log(message):
    print(message, flush=True)


def port_range():
    low, high = os.environ.get("LERIX_DOCKER_PORTS", "31100-31199").split("-")
    return iter(range(int(low), int(high) + 1))


class Engine:
    """The container CLI: the same commands for docker and podman, podman's extra flags added."""

    def __init__(self, name):
        self.name = name
        self.env = dict(os.environ)
        self.run_flags = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1000:1000", "--network=host"]
        if name == "podman":
            self.run_flags = ["--runtime", "runc"] + self.run_flags
            # Short names (debian:…, swift:…) resolve to docker.io, where the local images sit.
            conf = os.path.join(ROOT, ".build", "docker-test", "registries.conf")
            os.makedirs(os.path.dirname(conf), exist_ok=True)
            with open(conf, "w") as f:
                f.write('unqualified-search-registries = ["docker.io"]\nshort-name-mode = "permissive"\n')
            self.env["CONTAINERS_REGISTRIES_CONF"] = conf

    def __call__(self, *args, check=True, capture=True, timeout=None):
        command = [self.name] + list(args)
        result = subprocess.run(
            command, env=self.env, cwd=ROOT, text=True, timeout=timeout,
            stdout=subprocess.PIPE if capture else None, stderr=subprocess.STDOUT if capture else None,
        )
        if check and result.returncode != 0:
            raise Failure(f"{shlex.join(command)} exited {result.returncode}\n{result.stdout or ''}")
        return result

    def remove_leftovers(self):
        names = self("ps", "-a", "--format", "{{.Names}}", check=False).stdout.split()
        ours = [n for n in names if n.startswith(PREFIX)]
        if ours:
            self("rm", "-f", *ours, check=False)
        self("volume", "rm", "-f", VOLUME, check=False)


def http(port, method, path, body=None, headers=None, timeout=5):
    """(status, headers, body bytes) from 127.0.0.1:port; HTTP errors are answers, not raises."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def expect(condition, message):
    if not condition:
        raise Failure(message)


def wait_for(what, probe, seconds):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            last = probe()
            if last:
                return last
        except (OSError, urllib.error.URLError) as error:
            last = error
        time.sleep(0.25)
    raise Failure(f"{what}: not within {seconds} s (last: {last})")


def process_uid(engine, container):
    """The real uid of the container's main process (not of an `exec`'s shell)."""
    status = engine("exec", container, "cat", "/proc/1/status").stdout
    match = re.search(r"^Uid:\s+(\d+)", status, re.M)
    expect(match, f"{container}: no Uid line in /proc/1/status")
    return match.group(1)


# --- phases ---


def base_images(engine):
    if engine.name != "podman":
        log("docker pulls the base images itself")
        return
    subprocess.run(["bash", os.path.join(ROOT, "docker/test/base_images.sh")], env=engine.env, check=True)


def build(engine):
    engine(
        "build", *engine.run_flags,
        # podman's default OCI format has no HEALTHCHECK: build docker's, as `docker build` does.
        *(["--pull=never", "--format", "docker"] if engine.name == "podman" else []),
        "-f", "docker/Dockerfile", "-t", IMAGE, ".", capture=False,
    )
    config = engine("image", "inspect", IMAGE).stdout
    expect("/healthz" in config, "the image has no HEALTHCHECK on /healthz")
    size = engine("image", "inspect", "--format", "{{.Size}}", IMAGE).stdout.strip()
    log(f"image {IMAGE}: {int(size) / 1e6:.1f} MB")
    return int(size)


def dockerfile_stages():
    """[(FROM line, [apt-get install package names])] per stage of docker/Dockerfile."""
    text = open(os.path.join(ROOT, "docker/Dockerfile")).read().replace("\\\n", " ")
    stages = []
    for line in text.splitlines():
        line = line.strip()
        if line.upper().startswith("FROM "):
            stages.append((line, []))
        elif line.upper().startswith("RUN ") and stages:
            for install in re.findall(r"apt-get install ([^&;|]*)", line):
                stages[-1][1].extend(w for w in install.split() if not w.startswith("-"))
    return stages


def needed_libraries(elf):
    """The DT_NEEDED sonames of a 64-bit little-endian ELF file: the libraries it names itself,
    not those they pull in (ldd lists both)."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = []
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 6:  # SHT_DYNAMIC
            continue
        strtab = sections[link][4]
        for i in range(size // entsize):
            tag, value = struct.unpack_from("<qQ", elf, offset + i * entsize)
            if tag == 1:  # DT_NEEDED
                names.append(elf[strtab + value:elf.index(b"\0", strtab + value)].decode())
    return names


def libraries(engine):
    runtime_from, named = dockerfile_stages()[-1]
    base_image = runtime_from.split()[1]
    binary = subprocess.run([engine.name, "run", "--rm", *engine.run_flags, "--entrypoint", "cat", IMAGE,
                             "/usr/local/bin/lerix-mock"], env=engine.env, capture_output=True, check=True).stdout
    needed = needed_libraries(binary)
    expect(needed, "the binary names no libraries")
    # What the image's own dynamic loader makes of the binary, and each file's package by dpkg.
    script = r"""
ldd /usr/local/bin/lerix-mock
echo ---
ldd /usr/local/bin/lerix-mock \
  | awk '$2 == "=>" { print $1, $3 } $1 ~ /^\// { n = split($1, p, "/"); print p[n], $1 }' \
  | while read -r soname lib; do
  real=$(readlink -f "$lib")
  pkg=$(dpkg-query -S "$real" 2>/dev/null || dpkg-query -S "${real#/usr}" 2>/dev/null \
        || dpkg-query -S "/usr$real" 2>/dev/null || echo "?: ")
  echo "$soname $lib ${pkg%%:*}"
done
"""
    out = engine("run", "--rm", *engine.run_flags, "--entrypoint", "/bin/sh", IMAGE, "-c", script).stdout
    linked, owners = out.split("---\n")
    missing = [l.strip() for l in linked.splitlines() if "not found" in l]
    expect(not missing, "libraries the image lacks:\n  " + "\n  ".join(missing))
    base = set(engine("run", "--rm", *engine.run_flags, "--entrypoint", "dpkg-query", base_image,
                      "-W", "-f", "${Package}\n").stdout.split())
    package_of = {soname: (lib, package) for soname, lib, package in (l.split() for l in owners.splitlines())}
    unexplained = []
    log(f"{len(needed)} libraries the binary names itself ({len(package_of)} loaded in all):")
    for soname in needed:
        lib, package = package_of.get(soname, ("(not loaded)", "?"))
        how = "named in the Dockerfile" if package in named else "in the base image" if package in base else None
        log(f"  {soname:<24} {package:<16} {how or 'NOT NAMED'}")
        if how is None:
            unexplained.append(f"{soname} ({package})")
    expect(not unexplained, "libraries the binary links whose package the runtime stage of docker/Dockerfile "
           "does not name (they arrive only as another package's dependency): " + ", ".join(unexplained))


def serve(engine, ports):
    port = next(ports)
    name = PREFIX + "serve"
    engine("run", "-d", "--name", name, *engine.run_flags, IMAGE,
           "serve", "--host", "127.0.0.1", "--port", str(port), "--quiet")
    try:
        wait_for("/healthz", lambda: http(port, "GET", "/healthz")[0] == 200, 30)
        check = "/v1/projects/demo/release-control?platform=ios&version=2.3.0"
        status, _, body = http(port, "GET", check)
        expect(status == 200 and json.loads(body).get("required_update") is None, f"first check: {status} {body!r}")
        status, _, body = http(port, "POST", "/admin/projects/demo/rules", {
            "type": "required_update", "platforms": ["ios"], "below": "2.4.0",
            "store_url": "https://apps.apple.com/app/id1", "message": "Please update"})
        expect(status == 201, f"rule: {status} {body!r}")
        status, headers, body = http(port, "GET", check)
        answer = json.loads(body)
        expect(status == 200 and (answer.get("required_update") or {}).get("below") == "2.4.0",
               f"check after the rule: {status} {body!r}")
        etag = headers.get("ETag")
        expect(etag, "the check has no ETag")
        status, _, body = http(port, "GET", check, headers={"If-None-Match": etag})
        expect(status == 304 and body == b"", f"revalidation: {status} {body!r}")
        uid = process_uid(engine, name)
        expect(uid == NONROOT_UID, f"serve runs as uid {uid}, not {NONROOT_UID}")
        log(f"serve: healthz, check, rule, check, 304 on 127.0.0.1:{port}; process uid {uid}")
    except Failure:
        log(engine("logs", name, check=False).stdout)
        raise
    finally:
        engine("rm", "-f", name, check=False)


def scenarios(engine):
    result = engine("run", "--rm", "--name", PREFIX + "scenarios", *engine.run_flags, IMAGE, "scenarios", check=False)
    summary = re.search(r"(\d+) passed, (\d+) failed, (\d+) skipped", result.stdout)
    if result.returncode != 0 or not summary or summary.group(2) != "0":
        raise Failure(f"scenarios in the image exited {result.returncode}:\n{result.stdout}")
    expect(int(summary.group(1)) > 0, "scenarios ran nothing")
    log(f"scenarios: {summary.group(0)}")


class ComposeByHand:
    """docker/compose.yaml's services run with `<engine> run`, in depends_on order."""

    def __init__(self, engine, ports):
        self.engine = engine
        with open(os.path.join(ROOT, "docker/compose.yaml")) as f:
            self.spec = yaml.safe_load(f)
        self.services = self.spec["services"]
        # Each service's --port gets one of ours; URLs naming a service:port follow.
        self.port = {}
        for name, service in self.services.items():
            command = service["command"]
            self.port[name] = (command[command.index("--port") + 1], str(next(ports)))

    def translate(self, text):
        text = text.replace("0.0.0.0", "127.0.0.1")
        for name, (theirs, ours) in self.port.items():
            text = text.replace(f"//{name}:{theirs}", f"//{name}:{ours}")
            text = text.replace(f"//127.0.0.1:{theirs}", f"//127.0.0.1:{ours}")
        return text

    def command(self, name):
        command = [self.translate(a) for a in self.services[name]["command"]]
        i = command.index("--port")
        command[i + 1] = self.port[name][1]
        return command

    def container(self, name):
        return PREFIX + "compose-" + name

    def start(self, name):
        service = self.services[name]
        health = service["healthcheck"]
        test = health["test"]
        expect(test[0] == "CMD", f"{name}: healthcheck {test}")
        flags = ["--name", self.container(name), *self.engine.run_flags,
                 "--health-cmd", shlex.join(self.translate(a) for a in test[1:]),
                 "--health-interval", health.get("interval", "30s"),
                 "--health-timeout", health.get("timeout", "30s"),
                 "--health-retries", str(health.get("retries", 3))]
        for other in self.services:
            if other != name:
                flags += ["--add-host", f"{other}:127.0.0.1"]
        for mount in service.get("volumes", []):
            volume, path = mount.split(":", 1)
            expect(volume in (self.spec.get("volumes") or {}), f"{name}: {volume} is not a named volume")
            flags += ["-v", f"{VOLUME}:{path}"]
        for dependency, condition in (service.get("depends_on") or {}).items():
            expect(condition.get("condition") == "service_healthy", f"{name} on {dependency}: {condition}")
            self.wait_healthy(dependency)
        self.engine("run", "-d", *flags, IMAGE, *self.command(name))

    def wait_healthy(self, name):
        """Healthy by the service's own health check. podman schedules health checks through
        systemd timers, absent in a container host without systemd: run them as it would."""
        container = self.container(name)
        interval = 1.0

        def probe():
            if self.engine.name == "podman":
                self.engine("healthcheck", "run", container, check=False)
            state = self.engine("inspect", "--format", "{{.State.Health.Status}}", container).stdout.strip()
            if state == "unhealthy":
                raise Failure(f"{name} is unhealthy:\n" + self.engine("logs", container, check=False).stdout)
            if state != "healthy":
                time.sleep(interval)
            return state == "healthy"

        wait_for(f"{name} healthy", probe, 60)

    def run(self):
        self.engine("volume", "create", VOLUME)
        order = sorted(self.services, key=lambda n: len(self.services[n].get("depends_on") or {}))
        for name in order:
            self.start(name)
        for name in order:
            self.wait_healthy(name)
            uid = process_uid(self.engine, self.container(name))
            expect(uid == NONROOT_UID, f"{name} runs as uid {uid}, not {NONROOT_UID}")
        log(f"compose: {', '.join(f'{n} on 127.0.0.1:{self.port[n][1]}' for n in order)} healthy, uid {NONROOT_UID}")

        server = int(self.port["lerix-mock"][1])
        gateway = int(self.port["push-gateway"][1])
        status, _, body = http(server, "PUT", "/admin/projects/demo",
                               {"apns_topic": "dev.lerix.demo", "fcm_project": "demo"})
        expect(status in (200, 201), f"project: {status} {body!r}")
        for token, platform in [(SWIFT_TOKEN, "ios"), (ANDROID_TOKEN, "android")]:
            status, _, body = http(server, "PUT", f"/v1/projects/demo/push-tokens/{token}", {"platform": platform})
            expect(status in (200, 201, 204), f"token {platform}: {status} {body!r}")
        status, _, body = http(server, "POST", "/admin/projects/demo/rules",
                               {"type": "required_update", "below": "9.0.0"})
        expect(status == 201, f"blocking rule: {status} {body!r}")
        rule = json.loads(body)["id"]

        def delivered():
            got = json.loads(http(gateway, "GET", "/deliveries")[2])["deliveries"]
            return {d.get("token") for d in got} >= {SWIFT_TOKEN, ANDROID_TOKEN} and got

        got = wait_for("the push-gateway container's deliveries", delivered, 30)
        log(f"compose: the blocking change reached the push-gateway container: {len(got)} deliveries "
            f"({', '.join(sorted(d.get('provider', '?') for d in got))})")

        # Stopped as compose stops it (SIGTERM), then a new server container on the same volume:
        # the rule is still there (a restart of the same container would keep its own files too).
        server_container = self.container("lerix-mock")
        self.engine("stop", "-t", "20", server_container)
        code = self.engine("inspect", "--format", "{{.State.ExitCode}}", server_container).stdout.strip()
        expect(code == "0", f"the server exited {code} on SIGTERM")
        self.engine("rm", server_container)
        self.start("lerix-mock")
        self.wait_healthy("lerix-mock")
        status, _, body = http(server, "GET", "/admin/projects/demo/rules")
        expect(status == 200 and rule in body.decode(), f"rules after the restart: {status} {body!r}")
        status, _, body = http(server, "GET", "/v1/projects/demo/release-control?platform=ios&version=2.3.0")
        expect((json.loads(body).get("required_update") or {}).get("rule") == rule,
               f"check after the restart: {status} {body!r}")
        log(f"compose: rule {rule} kept in volume {VOLUME} across a new server container")

    def logs(self):
        for name in self.services:
            log(f"--- {name} logs\n" + self.engine("logs", self.container(name), check=False).stdout)


def choose_engine():
    forced = os.environ.get("LERIX_CONTAINER_ENGINE")
    if forced:
        return Engine(forced)
    try:
        if subprocess.run(["docker", "info"], capture_output=True, timeout=20).returncode == 0:
            return Engine("docker")
    except (OSError, subprocess.TimeoutExpired):
        pass
    return Engine("podman")


def main():
    engine = choose_engine()
    log(f"container engine: {engine.name}")
    ports = port_range()
    timings = []
    compose = None

    def cleanup(*_):
        engine.remove_leftovers()
        if _:
            sys.exit(1)

    signal.signal(signal.SIGTERM, cleanup)
    signal.signal(signal.SIGINT, cleanup)
    engine.remove_leftovers()
    size = None
    try:
        for phase, run in [
            ("base images", lambda: base_images(engine)),
            ("build", lambda: build(engine)),
            ("libraries", lambda: libraries(engine)),
            ("serve", lambda: serve(engine, ports)),
            ("scenarios", lambda: scenarios(engine)),
            ("compose", lambda: compose.run()),
        ]:
            log(f"== {phase}")
            if phase == "compose":
                compose = ComposeByHand(engine, ports)
            started = time.monotonic()
            try:
                value = run()
            except Failure:
                if phase == "compose":
                    compose.logs()
                raise
            timings.append((phase, time.monotonic() - started))
            if phase == "build":
                size = value
    except (Failure, subprocess.CalledProcessError) as error:
        log(f"docker-test FAILED: {error}")
        return 1
    finally:
        cleanup()
        log("== times")
        for phase, seconds in timings:
            log(f"  {phase:<12} {seconds:7.1f} s")
        if size:
            log(f"  image size   {size / 1e6:.1f} MB ({IMAGE})")
    log(f"docker-test passed ({engine.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
