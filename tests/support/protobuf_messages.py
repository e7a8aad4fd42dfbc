"""Protobuf message classes made at run time, as a user's generated `_pb2` classes would be: a file of two
top-level messages (so values of the second carry the message index [1]) with a oneof, an enum, a map, a
nested message, a proto3 `optional` field, unsigned and zigzag integers and a well-known Timestamp."""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

F = descriptor_pb2.FieldDescriptorProto


def _field(name: str, number: int, kind: int, *, type_name: str = "", repeated: bool = False, **extra: Any) -> F:
    label = F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL
    field = F(name=name, number=number, type=kind, label=label, **extra)
    if type_name:
        field.type_name = type_name
    return field


def person_file() -> descriptor_pb2.FileDescriptorProto:
    file = descriptor_pb2.FileDescriptorProto(
        name="shop/person.proto", package="shop", syntax="proto3", dependency=["google/protobuf/timestamp.proto"]
    )
    kind = file.enum_type.add(name="Kind")
    for number, symbol in enumerate(("KIND_UNKNOWN", "KIND_RETAIL", "KIND_BULK")):
        kind.value.add(name=symbol, number=number)
    file.message_type.add(name="Meta").field.append(_field("source", 1, F.TYPE_STRING))
    person = file.message_type.add(name="Person")
    person.oneof_decl.add(name="contact")
    person.oneof_decl.add(name="_nickname")
    address = person.nested_type.add(name="Address")
    address.field.append(_field("city", 1, F.TYPE_STRING))
    scores = person.nested_type.add(name="ScoresEntry")
    scores.options.map_entry = True
    scores.field.extend([_field("key", 1, F.TYPE_STRING), _field("value", 2, F.TYPE_INT32)])
    person.field.extend(
        [
            _field("name", 1, F.TYPE_STRING),
            _field("age", 2, F.TYPE_INT32),
            _field("delta", 3, F.TYPE_SINT32),
            _field("visits", 4, F.TYPE_UINT32),
            _field("kind", 5, F.TYPE_ENUM, type_name=".shop.Kind"),
            _field("tags", 6, F.TYPE_STRING, repeated=True),
            _field("scores", 7, F.TYPE_MESSAGE, type_name=".shop.Person.ScoresEntry", repeated=True),
            _field("home", 8, F.TYPE_MESSAGE, type_name=".shop.Person.Address"),
            _field("seen", 9, F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp"),
            _field("nickname", 10, F.TYPE_STRING, proto3_optional=True, oneof_index=1),
            _field("email", 11, F.TYPE_STRING, oneof_index=0),
            _field("phone", 12, F.TYPE_INT64, oneof_index=0),
            _field("blob", 13, F.TYPE_BYTES),
            _field("ratio", 14, F.TYPE_DOUBLE),
            _field("active", 15, F.TYPE_BOOL),
        ]
    )
    return file


def person_classes() -> tuple[Any, Any]:
    """The (Meta, Person) message classes, in a pool of their own."""
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(timestamp_pb2.DESCRIPTOR.serialized_pb)
    pool.AddSerializedFile(person_file().SerializeToString())
    meta = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Meta"))
    person = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Person"))
    return meta, person


def person(n: int, person_class: Any) -> Any:
    """A Person with every kind of field set (the oneof alternating between its members)."""
    value = person_class(
        name=f"p{n}",
        age=30 + n,
        delta=-n,
        visits=4_000_000_000 + n,
        kind=1 + n % 2,
        tags=["a", f"t{n}"],
        blob=bytes([n, 255]),
        ratio=0.25 * n,
        active=n % 2 == 0,
    )
    value.scores["x"] = n
    value.home.city = f"city{n}"
    value.seen.seconds, value.seen.nanos = 1_700_000_000 + n, 5_000_000
    if n % 2:
        value.email = f"p{n}@example.com"
    else:
        value.phone = 5550000 + n
        value.nickname = f"nick{n}"
    return value
