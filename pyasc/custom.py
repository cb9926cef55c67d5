"""placeholder"""


def inline_custom_ops(module) -> None:
    return None
