"""Leave out of the Lambda package what the function never loads (run by src/Makefile).

    python trim_package.py ARTIFACTS_DIR

botocore ships the API models of every AWS service (about 27 MB of the package's 44 MB); the function
makes DynamoDB calls only. Console scripts (bin/) never run in Lambda.
"""

import shutil
import sys
from pathlib import Path

SERVICES_USED = {"dynamodb"}


def trim(root: Path) -> None:
    shutil.rmtree(root / "bin", ignore_errors=True)
    data = root / "botocore" / "data"
    for service in data.iterdir():
        if service.is_dir() and service.name not in SERVICES_USED:
            shutil.rmtree(service)


if __name__ == "__main__":
    trim(Path(sys.argv[1]))
