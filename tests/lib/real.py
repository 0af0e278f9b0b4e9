"""Real archives from Debian's packages, linked whole with small drivers."""


def tests(ctx, Fail, sh, must, run_pair, profile_json, compare_counts, object_functions):
    return []
