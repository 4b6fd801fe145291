# Java binding (bindings/java) and the cross-language sum benchmark (bench/languages.sh).
#   make setup-java        check for JDK 25 and Maven, pre-fetch the Maven plugins and JUnit
#   make test-java         build libsmartarrays.so (release) and run the JUnit 5 suite
#   make bench-languages   single-threaded sum over N values (default 100M) in Rust, C++, Python, Java
# The JDK on the PATH may be older than 25, so the JDK is found here: JAVA25_HOME if given, else the
# newest /usr/lib/jvm/*25* (or later) that has a javac.

JAVA_DIR := bindings/java
JAVA25_HOME ?= $(lastword $(foreach jdk,$(sort $(wildcard /usr/lib/jvm/*25* /usr/lib/jvm/*-2[6-9]-*)),$(if $(wildcard $(jdk)/bin/javac),$(jdk))))
JAVA_CARGO_TARGET_DIR ?= $(if $(CARGO_TARGET_DIR),$(CARGO_TARGET_DIR),$(CURDIR)/target)
JAVA_NATIVE_LIBRARY ?= $(JAVA_CARGO_TARGET_DIR)/release/libsmartarrays.so
# Maven itself runs on the JDK 25 too; its bundled Guava touches sun.misc.Unsafe, which JDK 24+ warns about.
JAVA_MVN = JAVA_HOME="$(JAVA25_HOME)" MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow $${MAVEN_OPTS:-}" \
	mvn -B -ntp -f $(JAVA_DIR)/pom.xml -Dorg.slf4j.simpleLogger.defaultLogLevel=warn
# Keeps Surefire's per-class and summary lines, drops colour codes and blank [INFO] lines.
JAVA_MVN_FILTER = sed -u -e 's/\x1b\[[0-9;]*m//g' | awk '!/^\[INFO\] *$$/ && NF'

SETUP_TARGETS += setup-java
TEST_TARGETS += test-java

.PHONY: setup-java java-prefetch check-java test-java java-library java-jar bench-languages

check-java:
	@if [ -z "$(JAVA25_HOME)" ] || ! "$(JAVA25_HOME)/bin/java" -version 2>&1 | grep -Eq 'version "(2[5-9]|[3-9][0-9])'; then \
		echo "error: the Java binding needs a JDK 25 (none found under /usr/lib/jvm/*25*); install one (e.g. Temurin 25) or pass JAVA25_HOME=/path/to/jdk" >&2; exit 1; fi
	@command -v mvn >/dev/null || { echo "error: Maven (mvn, 3.8 or newer) is required for the Java binding: apt-get install maven" >&2; exit 1; }

setup-java:
	@if [ -z "$(JAVA25_HOME)" ] && command -v apt-get >/dev/null; then \
		echo "setup-java: no JDK 25 under /usr/lib/jvm; trying apt-get install openjdk-25-jdk-headless"; \
		{ apt-get install -y -q openjdk-25-jdk-headless || { apt-get update -q && apt-get install -y -q openjdk-25-jdk-headless; }; } >/dev/null 2>&1 \
			|| echo "setup-java: apt could not install a JDK 25" >&2; fi
	@if ! command -v mvn >/dev/null && command -v apt-get >/dev/null; then \
		echo "setup-java: installing Maven with apt-get"; \
		{ apt-get install -y -q maven || { apt-get update -q && apt-get install -y -q maven; }; } >/dev/null 2>&1 || true; fi
	@$(MAKE) --no-print-directory java-prefetch

# Run in a sub-make by setup-java, so that a JDK installed a moment ago is found.
java-prefetch: check-java
	@$(JAVA_MVN) -q dependency:go-offline test -Dtest=PlacementTest 2>&1 | $(JAVA_MVN_FILTER)

java-library: setup-rust
	@CARGO_TARGET_DIR="$(JAVA_CARGO_TARGET_DIR)" $(CARGO) build --quiet --release -p smartarrays-capi
	@test -f "$(JAVA_NATIVE_LIBRARY)" || { echo "error: $(JAVA_NATIVE_LIBRARY) was not built" >&2; exit 1; }

# The binding's jar without running its tests (the README checker compiles the Java examples
# against it).
JAVA_JAR := $(JAVA_DIR)/target/smartarrays-0.1.0.jar
java-jar: check-java
	@$(JAVA_MVN) -q -DskipTests package 2>&1 | $(JAVA_MVN_FILTER)

test-java: check-java java-library
	@echo "test-java: JUnit 5 suite of bindings/java against $(JAVA_NATIVE_LIBRARY)"
	@$(JAVA_MVN) -Dorg.slf4j.simpleLogger.log.org.apache.maven.plugin.surefire=info \
		-Dsmartarrays.library="$(JAVA_NATIVE_LIBRARY)" package 2>&1 | $(JAVA_MVN_FILTER)
	@jar=$$(ls $(JAVA_DIR)/target/smartarrays-*.jar | head -1); \
	echo "test-java: the jar runs: $$jar"; \
	JAVA_HOME="$(JAVA25_HOME)" "$(JAVA25_HOME)/bin/java" -Dsmartarrays.library="$(JAVA_NATIVE_LIBRARY)" -jar "$$jar" \
		| grep "check: 5 values at 10 bits, sum 1010" >/dev/null || { echo "test-java: java -jar $$jar failed" >&2; exit 1; }

# N=values (default 100000000), REPETITIONS=rounds (default 5), LANGUAGES="rust cpp python java".
bench-languages: check-java java-library
	@JAVA_HOME="$(JAVA25_HOME)" CARGO="$(CARGO)" CARGO_TARGET_DIR="$(JAVA_CARGO_TARGET_DIR)" \
		SMARTARRAYS_LIBRARY="$(JAVA_NATIVE_LIBRARY)" $(if $(N),N="$(N)") $(if $(REPETITIONS),REPETITIONS="$(REPETITIONS)") \
		$(if $(LANGUAGES),LANGUAGES="$(LANGUAGES)") bench/languages.sh
