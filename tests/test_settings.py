"""Settings: env prefix, TOML file, flags on top, OpenAI variables, paths under one folder."""

import pytest

from assistant.settings import SettingsError, load_settings


def test_env_toml_and_flags_in_order(tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text('top_k = 4\ncollection = "from_toml"\nmax_tokens = 99\n')
    monkeypatch.setenv("ASSISTANT_CONFIG", str(cfg))
    monkeypatch.setenv("ASSISTANT_COLLECTION", "from_env")
    s = load_settings(max_tokens=7)
    assert s.top_k == 4 and s.collection == "from_env" and s.max_tokens == 7


def test_openai_standard_variables_are_honoured(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    s = load_settings()
    assert s.openai_api_key == "sk-test" and s.openai_base_url == "http://127.0.0.1:9/v1"


def test_every_path_lives_under_the_data_dir(data_dir):
    p = load_settings().paths
    for path in (p.chroma_dir, p.cache_dir, p.conversations_db, p.log_dir):
        assert data_dir in path.parents


def test_invalid_value_is_one_line_naming_the_setting(monkeypatch):
    monkeypatch.setenv("ASSISTANT_TOP_K", "lots")
    with pytest.raises(SettingsError) as err:
        load_settings()
    assert "top_k" in str(err.value) and "\n" not in str(err.value)


def test_broken_toml_names_the_file(tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text("top_k = = 3\n")
    monkeypatch.setenv("ASSISTANT_CONFIG", str(cfg))
    with pytest.raises(SettingsError, match="config.toml"):
        load_settings()


def test_a_bad_value_in_the_toml_file_names_the_file_not_the_variable(tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text('top_k = "many"\n')
    monkeypatch.setenv("ASSISTANT_CONFIG", str(cfg))
    with pytest.raises(SettingsError, match=r"setting 'top_k' \(in .*config.toml\)"):
        load_settings()


def test_an_unknown_toml_key_or_a_missing_named_file_is_an_error(tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text("topk = 3\n")  # a typo would otherwise be ignored without a word
    monkeypatch.setenv("ASSISTANT_CONFIG", str(cfg))
    with pytest.raises(SettingsError, match="unknown setting 'topk'; did you mean top_k\?"):
        load_settings()
    monkeypatch.setenv("ASSISTANT_CONFIG", str(tmp_path / "nope.toml"))
    with pytest.raises(SettingsError, match="nope.toml: no such settings file"):
        load_settings()


def test_an_env_variable_that_names_no_setting_is_reported_with_the_closest_name():
    from assistant.settings import unknown_env_settings

    env = {"ASSISTANT_TOPK": "5", "ASSISTANT_TOP_K": "4", "ASSISTANT_SHARED_DIR": "/x", "HOME": "/root"}
    assert unknown_env_settings(env) == ["ASSISTANT_TOPK is not a setting and is ignored; did you mean ASSISTANT_TOP_K?"]


def test_a_fusion_weight_above_one_is_an_error(monkeypatch):
    monkeypatch.setenv("ASSISTANT_DENSE_WEIGHT", "1.5")
    with pytest.raises(SettingsError, match=r"setting 'dense_weight' \(env ASSISTANT_DENSE_WEIGHT\)"):
        load_settings()


def test_a_bad_value_names_the_value_given_and_an_example(monkeypatch):
    monkeypatch.setenv("ASSISTANT_TOP_K", "abc")
    with pytest.raises(SettingsError, match=r"setting 'top_k' \(env ASSISTANT_TOP_K\): .*; got 'abc'; give a valid "
                                            r"value, e.g. the default 8$"):
        load_settings()


@pytest.mark.parametrize("name", ["t1", "a..b", "-papers", "x" * 513, "my papers"])
def test_a_collection_name_chroma_would_reject_is_a_settings_error_naming_the_option(name):
    # a new user's `--collection t1` got Chroma's own validation error, with a blank line before it
    with pytest.raises(SettingsError, match=r"setting 'collection' \(option --collection\): a collection name has "
                                            r"3-512 characters"):
        load_settings(collection=name)
    assert load_settings(collection="icml-2026_v2.0").collection == "icml-2026_v2.0"
