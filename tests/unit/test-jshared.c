/* test-jshared.c: an array formatted once for all its parents (jshared, json.c) prints byte
 * for byte as json-c prints the same array, at every depth and with every flag. */
#include "unit.h"
#include <json-c/json.h>

/* a user stack's shape: objects of strings, numbers, null, a nested array, an escaped string */
static json_object *frames(void)
{
	json_object *a = json_object_new_array();
	for (int i = 0; i < 3; i++) {
		json_object *f = json_object_new_object();
		json_object_object_add(f, "pc", jstr("0x401010"));
		json_object_object_add(f, "symbol", jstr_untrusted("a\nb\"c\x7f", 6));
		json_object_object_add(f, "symbol_offset", json_object_new_int(10 + i));
		json_object_object_add(f, "ms", jround(1.25 * i, 2));
		json_object_object_add(f, "why", NULL);
		json_object *in = json_object_new_array();
		if (i == 1)
			json_object_array_add(in, json_object_new_boolean(1));
		json_object_object_add(f, "in", in);
		json_object_array_add(a, f);
	}
	return a;
}

/* the array under `depth` levels of objects, twice (shared) and once more of its own */
static json_object *doc(json_object *arr, int depth)
{
	json_object *top = json_object_new_object(), *o = top;
	for (int d = 0; d < depth; d++) {
		json_object *n = json_object_new_object();
		json_object_object_add(o, "k", n);
		o = n;
	}
	json_object_object_add(o, "first", json_object_get(arr));
	json_object_object_add(o, "second", arr);
	json_object *list = json_object_new_array();
	json_object_array_add(list, json_object_get(arr));
	json_object_object_add(o, "list", list);
	return top;
}

static void test_same_text(void **state)
{
	(void)state;
	const int flags[] = { JSON_C_TO_STRING_PLAIN, JSON_C_TO_STRING_SPACED,
	                      JSON_C_TO_STRING_PRETTY,
	                      JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE,
	                      JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED,
	                      JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB };
	for (int depth = 0; depth < 4; depth++)
		for (size_t f = 0; f < ARRAY_SIZE(flags); f++) {
			json_object *plain = doc(frames(), depth);
			json_object *shared = doc(jshared(frames()), depth);
			/* twice: the second print comes from the kept text */
			for (int k = 0; k < 2; k++) {
				const char *a = json_object_to_json_string_ext(plain, flags[f]);
				const char *b = json_object_to_json_string_ext(shared, flags[f]);
				assert_non_null(b);
				assert_string_equal(a, b);
			}
			json_object_put(plain);
			json_object_put(shared);
		}
}

/* an empty array, and the same shared array printed alone at level 0 */
static void test_empty_and_alone(void **state)
{
	(void)state;
	json_object *e = jshared(json_object_new_array()), *p = json_object_new_array();
	json_object *o1 = json_object_new_object(), *o2 = json_object_new_object();
	json_object_object_add(o1, "a", e);
	json_object_object_add(o2, "a", p);
	assert_string_equal(json_object_to_json_string_ext(o1, JSON_C_TO_STRING_PRETTY),
	                    json_object_to_json_string_ext(o2, JSON_C_TO_STRING_PRETTY));
	json_object *f = jshared(frames()), *g = frames();
	assert_string_equal(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PRETTY),
	                    json_object_to_json_string_ext(g, JSON_C_TO_STRING_PRETTY));
	assert_int_equal(json_object_array_length(f), 3);
	json_object_put(o1);
	json_object_put(o2);
	json_object_put(f);
	json_object_put(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_text),
		cmocka_unit_test(test_empty_and_alone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
