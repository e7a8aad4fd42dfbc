"""Which jars of a directory pyspark does not already ship, and (as a script) adding those to pyspark's own.

Hadoop's S3A connector (hadoop-aws and the AWS SDK's S3 clients) depends on libraries pyspark bundles at
other versions (netty, httpclient, slf4j, ...). Two versions of one library on Spark's classpath load
whichever comes first, and Spark's own must win: so only the jars whose artifact pyspark lacks are added.
The Spark image runs this at build time (docker/Dockerfile, `python extra_jars.py DIR`), which makes
s3a:// work with no classpath setting; the s3a:// tests build `spark.driver.extraClassPath` from
`missing_from_pyspark`. Only the standard library and pyspark: the image's build runs it on its own.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

_VERSIONED_JAR = re.compile(r"^(?P<artifact>.+?)-\d[^-]*(?:\.Final)?\.jar$")


def artifact(jar_name: str) -> str:
    """`netty-buffer` for netty-buffer-4.1.126.Final.jar: the name without its version."""
    match = _VERSIONED_JAR.match(jar_name)
    return match.group("artifact") if match else jar_name.removesuffix(".jar")


def pyspark_jars() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "jars"


def missing_from_pyspark(libs: Path) -> list[Path]:
    """The jars in `libs` whose artifact pyspark does not ship, sorted by name."""
    bundled = {artifact(jar.name) for jar in pyspark_jars().glob("*.jar")}
    return [jar for jar in sorted(libs.glob("*.jar")) if artifact(jar.name) not in bundled]


def main(arguments: list[str]) -> int:
    if len(arguments) != 1:
        print("usage: python extra_jars.py DIRECTORY_OF_JARS", file=sys.stderr)
        return 2
    added = missing_from_pyspark(Path(arguments[0]))
    if not added:
        print(f"no jar in {arguments[0]} that pyspark lacks", file=sys.stderr)
        return 1
    target = pyspark_jars()
    for jar in added:
        shutil.copy2(jar, target / jar.name)
    print(f"added {len(added)} jars to {target}: {', '.join(jar.name for jar in added)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
