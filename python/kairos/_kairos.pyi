from typing import Optional, Tuple

class NativeError(Exception): ...

def check(name: str, text: str) -> str: ...
def analyze(name: str, text: str) -> str: ...
def simulate(
    name: str,
    text: str,
    policy: str,
    duration: Optional[str] = ...,
    seed: int = ...,
    execution_times: str = ...,
) -> Tuple[str, str]: ...
