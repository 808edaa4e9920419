"""Documents the end-to-end tests open."""

CRLF_SESSION = (
    "APPROVED — ship it 🚀\r\n"  # line 0: decision
    "---TURN---\r\n"  # line 1
    "```python\r\n"  # line 2: code
    "def f(x):\r\n"
    "    return x\r\n"
    "```\r\n"
    "---TURN---\r\n"  # line 6
    "thanks! 🙏 é\u0301\r\n"  # line 7: chitchat, with a combining mark
)
UTF16_LINE0_END = 21  # "APPROVED — ship it " (19) + 🚀 (2 UTF-16 units)
UTF8_LINE0_END = 25  # — is 3 bytes, 🚀 4
UTF32_LINE0_END = 20

LF_SESSION = (
    "APPROVED — ship it\n---TURN---\nImplementing SPEC-120 AC-03 with new handler\n---TURN---\nthanks!\n"
)
