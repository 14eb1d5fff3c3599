"""What an option's value must be: the checks an Option declares (`check`). Each takes the option and its value
and gives the value as the Settings hold it, or raises a ConfigError in one line naming the option."""

from __future__ import annotations

import re
import ssl
from pathlib import Path
from urllib.parse import urlparse

from wallet_conformance.settings.option import Check, ConfigError, Option
from wallet_conformance.settings.program import PROGRAM
from wallet_conformance.spec import contract
from wallet_conformance.spec.catalogue import LEVELS, catalogue

MIN_KEY_LENGTH = 4  # shorter keys cannot be kept out of the output reliably (client/redaction.py)
NUBAN_DIGITS = 10  # an account number at a bank the list shows of type `nuban`: a NUBAN, ten digits


def http_url(option: Option, value: str) -> str:
    """An absolute http(s) URL with a host."""
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ConfigError(f"{option.flag} must be an http(s) URL (absolute, with a host), got {value!r}")
    return value


def base_url(option: Option, value: str) -> str:
    """The target's base address: an http(s) URL ending in the document's version segment (a trailing slash
    dropped), without credentials (they would be shown in every report, and sent in the proxy's Host header)."""
    value = http_url(option, value.rstrip("/"))
    if "@" in urlparse(value).netloc:
        raise ConfigError(
            f"{option.flag} carries credentials (user:password@host): they would be written in every "
            "report and line of output; the suite authenticates with the secret key alone"
        )
    if not value.endswith(contract.version_segment()):
        raise ConfigError(
            f"{option.flag} must end with the version segment {contract.version_segment()} "
            f"(the document's base address), got {value!r}"
        )
    return value


def absolute_url(option: Option, value: str) -> str:
    """A URL with a scheme and a host. Any scheme: which URLs a target takes as webhooks is not shown, and a refused
    one is worth observing."""
    parsed = urlparse(value)
    if not (parsed.scheme and parsed.netloc):
        raise ConfigError(f"{option.flag} must be an absolute URL (scheme and host), got {value!r}")
    return value


def secret_key(option: Option, key: str) -> str:
    """A key of at least MIN_KEY_LENGTH characters: a shorter one cannot be kept out of the output reliably."""
    if len(key) < MIN_KEY_LENGTH:
        raise ConfigError(
            f"{option.named} is {len(key)} characters long: a secret key has at least {MIN_KEY_LENGTH} "
            "(is it the whole key?)"
        )
    return key


def choice(words: str | None = None) -> Check:
    """One of the option's `choices`; its message names them as `words` (default: `one of quick, thorough`)."""

    def check(option: Option, value: str) -> str:
        if value not in (option.choices or ()):
            raise ConfigError(
                f"{option.flag} must be {words or 'one of ' + ', '.join(option.choices or ())}, got {value!r}"
            )
        return value

    return check


def positive_seconds(option: Option, value: float) -> float:
    """A number of seconds above 0."""
    value = float(value)
    if not value > 0:
        raise ConfigError(f"{option.flag} must be a number of seconds above 0, got {value:g}")
    return value


def seconds_or_zero(option: Option, value: float) -> float:
    """A number of seconds, 0 or more."""
    value = float(value)
    if not value >= 0:
        raise ConfigError(f"{option.flag} must be a number of seconds 0 or more, got {value:g}")
    return value


def positive_kobo(option: Option, value: int) -> int:
    """An amount of kobo above 0."""
    if int(value) <= 0:
        raise ConfigError(f"{option.flag} must be a number of kobo above 0, got {value}")
    return int(value)


def bank_account(option: Option, value: str) -> tuple[str, str | None]:
    """NUMBER or NUMBER:BANKCODE, as the pair (number, bank code or None): the number a NUBAN (NUBAN_DIGITS digits,
    the account number at a bank the list shows of type `nuban`), the bank code, when given, a word."""
    number, colon, code = value.partition(":")
    if not (len(number) == NUBAN_DIGITS and number.isascii() and number.isdigit()) or (
        colon and not re.fullmatch(r"[^\s:]+", code)
    ):
        raise ConfigError(
            f"{option.named} must be NUMBER or NUMBER:BANKCODE, NUMBER a NUBAN account number of "
            f"{NUBAN_DIGITS} digits and BANKCODE a bankCode of the bank list, got {value!r}"
        )
    return number, code or None


def host_and_port(option: Option, value: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets or not), as the pair (host, port)."""
    host, _, port = value.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit():
        raise ConfigError(f"{option.flag} must be HOST:PORT, got {value!r}")
    return host, int(port)


def path(_option: Option, value: str | Path) -> Path:
    """A file's path; whether it can be read is the reader's matter (reporting/gating.py for waivers, baseline)."""
    return Path(value)


def folder(option: Option, value: str | Path) -> Path:
    """A folder's path (made when the run first writes there); not a file's."""
    given = Path(value)
    if given.exists() and not given.is_dir():
        raise ConfigError(f"{option.flag} {given}: a file is there; give a folder (it is made when missing)")
    return given


def har_to_write(option: Option, value: str | Path) -> Path:
    """The path of the HAR file the run writes (--record-har); not a folder's."""
    if Path(value).is_dir():
        raise ConfigError(f"{option.flag} {value}: a folder is there; give the HAR file to write")
    return Path(value)


def pem_file(option: Option, value: str) -> str:
    """A readable PEM file of CA certificates."""
    try:
        ssl.create_default_context(cafile=value)
    except (OSError, ssl.SSLError) as error:
        raise ConfigError(f"{option.flag} {value!r} is not a readable PEM file of CA certificates ({error})") from None
    return value


def requirement_ids(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Ids of the catalogue, in any letter case (`ver-01`), as the catalogue writes them."""
    known = catalogue()
    unknown = [name for name in given if name.upper() not in known]
    if unknown:
        raise ConfigError(
            f"{option.flag} {', '.join(unknown)}: no such requirement in requirements.yaml; "
            f"`{PROGRAM} --list-requirements` lists them"
        )
    return tuple(dict.fromkeys(name.upper() for name in given))


def parts(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Parts of the document, as the catalogue names them (`limits`), in any letter case."""
    known = catalogue().sections
    unknown = [name for name in given if name.lower() not in known]
    if unknown:
        raise ConfigError(
            f"{option.flag} {', '.join(unknown)}: no such part of the document; the parts are {', '.join(known)}"
        )
    return tuple(dict.fromkeys(name.lower() for name in given))


def levels(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Levels of requirements (MUST, SHOULD, INFO), in any letter case."""
    unknown = [name for name in given if name.upper() not in LEVELS]
    if unknown:
        raise ConfigError(f"{option.flag} {', '.join(unknown)}: no such level; the levels are {', '.join(LEVELS)}")
    return tuple(dict.fromkeys(name.upper() for name in given))


def files_or_folders(option: Option, given: tuple[str, ...]) -> tuple[str, ...]:
    """Paths of files or folders that exist, as given (`har_files` finds the files they stand for)."""
    for name in given:
        if not (Path(name).is_dir() or Path(name).is_file()):
            raise ConfigError(f"{option.flag} {name}: no such file or folder")
    return given


def positive_count(option: Option, value: int) -> int:
    """A whole number above 0."""
    if int(value) <= 0:
        raise ConfigError(f"{option.flag} must be a whole number above 0, got {value}")
    return int(value)


def positive_megabytes(option: Option, value: float) -> float:
    """A number of megabytes above 0."""
    if not float(value) > 0:
        raise ConfigError(f"{option.flag} must be a number of megabytes above 0, got {value:g}")
    return float(value)
