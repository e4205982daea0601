// HLO IR: use lists, mutation, post order, locations and name uniquing.
#include "ir/hlo.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hloff {

// ---- Attribute ----

Attribute Attribute::Text(absl::string_view name_eq_value, size_t name_size,
                          AttrKind kind) {
  Attribute a;
  a.data_ = name_eq_value.data();
  a.size_ = static_cast<uint32_t>(name_eq_value.size());
  a.name_size_ = static_cast<uint16_t>(name_size);
  a.kind_ = kind;
  return a;
}

Attribute Attribute::Named(absl::string_view name, AttrKind kind) {
  Attribute a;
  a.data_ = name.data();
  a.size_ = static_cast<uint32_t>(name.size());
  a.name_size_ = static_cast<uint16_t>(name.size());
  a.kind_ = kind;
  return a;
}

Attribute Attribute::CalledList(const Called* called) {
  Attribute a;
  a.data_ = called;
  a.kind_ = AttrKind::kCalledComputations;
  return a;
}

absl::string_view Attribute::name() const {
  if (kind_ == AttrKind::kCalledComputations) {
    return static_cast<const Called*>(data_)->name;
  }
  return absl::string_view(static_cast<const char*>(data_), name_size_);
}

absl::string_view Attribute::value() const {
  if (kind_ != AttrKind::kRaw && kind_ != AttrKind::kFrontendAttributes) {
    return absl::string_view();
  }
  if (size_ <= name_size_) return absl::string_view();
  return absl::string_view(static_cast<const char*>(data_) + name_size_ + 1,
                           size_ - name_size_ - 1);
}

size_t Attribute::first() const {
  if (kind_ != AttrKind::kCalledComputations) return 0;
  return static_cast<const Called*>(data_)->first;
}

size_t Attribute::count() const {
  if (kind_ != AttrKind::kCalledComputations) return 0;
  return static_cast<const Called*>(data_)->count;
}

bool Attribute::is_list() const {
  return kind_ == AttrKind::kCalledComputations &&
         static_cast<const Called*>(data_)->is_list;
}

// ---- Instruction: storage ----

Instruction::~Instruction() {
  if (flags_ & kOwnsShape) delete shape_;
  if (rare_ != nullptr) rare_->~Rare();
}

Arena& Instruction::arena() const { return parent_->parent_->arena(); }

Instruction::Payload& Instruction::payload() {
  if (payload_ != nullptr) return *payload_;
  auto& free = parent_->parent_->free_payloads_;
  if (free.empty()) {
    payload_ = arena().New<Payload>();
  } else {
    payload_ = new (free.back()) Payload();
    free.pop_back();
  }
  return *payload_;
}

Instruction::Extra& Instruction::extra() {
  Payload& p = payload();
  if (p.extra != nullptr) return *p.extra;
  auto& free = parent_->parent_->free_extras_;
  if (free.empty()) {
    p.extra = arena().New<Extra>();
  } else {
    p.extra = new (free.back()) Extra();
    free.pop_back();
  }
  return *p.extra;
}

Instruction::Origin& Instruction::origin() {
  Payload& p = payload();
  if (p.origin != nullptr) return *p.origin;
  auto& free = parent_->parent_->free_origins_;
  if (free.empty()) {
    p.origin = arena().New<Origin>();
  } else {
    p.origin = new (free.back()) Origin();
    free.pop_back();
  }
  return *p.origin;
}

Instruction::Rare& Instruction::rare() const {
  if (rare_ != nullptr) return *rare_;
  auto& free = parent_->parent_->free_rares_;
  if (free.empty()) {
    rare_ = arena().New<Rare>();
  } else {
    rare_ = new (free.back()) Rare();
    free.pop_back();
  }
  return *rare_;
}

void Instruction::AppendAttribute(const Attribute& attribute) {
  Attribute* grown = static_cast<Attribute*>(arena().Allocate(
      sizeof(Attribute) * (attribute_count_ + 1), alignof(Attribute)));
  std::copy(attributes_, attributes_ + attribute_count_, grown);
  grown[attribute_count_] = attribute;
  attributes_ = grown;
  ++attribute_count_;
}

void Instruction::SetShape(const Shape* shape, bool owned) {
  if (flags_ & kOwnsShape) delete shape_;
  shape_ = const_cast<Shape*>(shape);
  flags_ = owned ? (flags_ | kOwnsShape) : (flags_ & ~kOwnsShape);
}

Shape* Instruction::mutable_shape() {
  if (!(flags_ & kOwnsShape)) {
    shape_ = new Shape(*shape_);
    flags_ |= kOwnsShape;
    if (parent_ != nullptr) ++parent_->parent_->owned_shapes_;
  }
  return shape_;
}

void Instruction::set_shape(const Shape& shape) {
  if (&shape == shape_) return;
  const Shape* shared = parent_->parent_->InternShape(shape);
  if (shared == shape_) return;
  SetShape(shared, /*owned=*/false);
}

absl::string_view Instruction::opcode_spelling() const {
  const Extra* e = extra_or_null();
  if (e != nullptr && !e->opcode_spelling.empty()) return e->opcode_spelling;
  return HloOpcodeString(opcode_);
}

SourceLoc Instruction::loc() const {
  if (rare_ != nullptr && rare_->has_loc) return rare_->loc;
  if (const Origin* o = origin_or_null(); o != nullptr && o->from_source) {
    if (o->offset == kNoOffset || parent_ == nullptr) return SourceLoc{};
    return parent_->parent_->LocAt(o->offset);
  }
  if (offset_ == kNoOffset || parent_ == nullptr) return SourceLoc{};
  return parent_->parent_->LocAt(offset_);
}

void Instruction::set_loc(SourceLoc loc) {
  Rare& r = rare();
  r.has_loc = true;
  r.loc = loc;
}

absl::string_view Instruction::literal_text() const {
  return payload_ == nullptr ? absl::string_view() : payload_->literal;
}

absl::Span<const int64_t> Instruction::dynamic_slice_sizes() const {
  if (payload_ == nullptr) return {};
  return absl::MakeConstSpan(payload_->dynamic_slice_sizes,
                             payload_->dynamic_slice_size_count);
}

absl::Span<const Instruction::SliceDim> Instruction::slice_dims() const {
  const Extra* e = extra_or_null();
  if (e == nullptr) return {};
  return absl::MakeConstSpan(e->slice_dims, e->slice_dim_count);
}

absl::string_view Instruction::async_execution_thread() const {
  const Extra* e = extra_or_null();
  if (e == nullptr || e->async_execution_thread.empty()) return "main";
  return e->async_execution_thread;
}

absl::Span<const Instruction::Aliasing>
Instruction::output_to_operand_aliasing() const {
  if (rare_ == nullptr) return {};
  return rare_->aliasing;
}

absl::string_view Instruction::origin_name() const {
  Origin* o = payload_ == nullptr ? nullptr : payload_->origin;
  if (o == nullptr) return name();
  if (o->name.empty() && o->from_source && !o->note.empty()) {
    // Built on first use (diagnostics only).
    o->name = parent_->parent_->arena().CopyString(
        absl::StrCat(o->source_name, " (", o->note, ")"));
  }
  if (!o->name.empty()) return o->name;
  if (o->from_source) return o->source_name;
  return name();
}

namespace {
// The first (up to) four bytes of `text`, zero-padded.
uint32_t Prefix4(absl::string_view text) {
  uint32_t prefix = 0;
  std::memcpy(&prefix, text.data(), std::min<size_t>(4, text.size()));
  return prefix;
}
}  // namespace

void Instruction::SetName(absl::string_view name) {
  name_data_ = name.data();
  name_size_ = static_cast<uint32_t>(name.size());
  name_prefix_ = Prefix4(name);
}

std::vector<int64_t> Instruction::OperandIndices(
    const Instruction* operand) const {
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < operand_count(); ++i) {
    if (operands_[i] == operand) indices.push_back(i);
  }
  return indices;
}

Computation* Instruction::CalledComputation(absl::string_view attr) const {
  auto called = called_computations();
  for (const Attribute& a : attributes()) {
    if (a.kind() == AttrKind::kCalledComputations && a.count() > 0 &&
        a.name() == attr) {
      return called[a.first()];
    }
  }
  return nullptr;
}

bool Instruction::IsRoot() const {
  return parent_ != nullptr && parent_->root() == this;
}

// ---- metadata ----

absl::string_view Instruction::MetadataText() const {
  if (const Origin* o = origin_or_null(); o != nullptr && o->from_source) {
    return o->metadata;
  }
  auto raw = FindRawAttribute("metadata");
  return raw ? raw->value : absl::string_view();
}

namespace {

// Parses the text of a `metadata={...}` attribute.
OpMetadata ParseMetadataText(absl::string_view v) {
  OpMetadata md;
  if (v.empty()) return md;
  // Space- or comma-separated key=value items.
  size_t i = 1;
  while (i + 1 < v.size()) {
    while (i < v.size() && (v[i] == ' ' || v[i] == ',')) ++i;
    size_t key_start = i;
    while (i < v.size() && v[i] != '=' && v[i] != ' ' && v[i] != '}') ++i;
    absl::string_view key = v.substr(key_start, i - key_start);
    if (i >= v.size() || v[i] != '=') break;
    ++i;
    size_t value_start = i;
    std::string text;
    if (i < v.size() && (v[i] == '"' || v[i] == '\'')) {
      char q = v[i++];
      while (i < v.size() && v[i] != q) {
        if (v[i] == '\\') ++i;
        ++i;
      }
      ++i;
      absl::string_view quoted = v.substr(value_start + 1, i - value_start - 2);
      // On a bad escape CUnescape leaves partial output (NUL bytes
      // included); the text as written is the better report.
      if (!absl::CUnescape(quoted, &text)) text = std::string(quoted);
    } else if (i < v.size() && v[i] == '{') {
      while (i < v.size() && v[i] != '}') ++i;
      ++i;
    } else {
      while (i < v.size() && v[i] != ' ' && v[i] != ',' && v[i] != '}') ++i;
      text = std::string(v.substr(value_start, i - value_start));
    }
    int64_t number = 0;
    if (key == "op_name") md.op_name = text;
    if (key == "op_type") md.op_type = text;
    if (key == "source_file") md.source_file = text;
    if (key == "source_line" && absl::SimpleAtoi(text, &number)) {
      md.source_line = number;
    }
    if (key == "stack_frame_id" && absl::SimpleAtoi(text, &number)) {
      md.stack_frame_id = number;
    }
  }
  return md;
}

}  // namespace

const OpMetadata& Instruction::metadata() const {
  static const OpMetadata* const kEmpty = new OpMetadata();
  if (rare_ != nullptr && rare_->metadata_set) {
    return rare_->metadata ? *rare_->metadata : *kEmpty;
  }
  absl::string_view text = MetadataText();
  if (text.empty()) return *kEmpty;
  Rare& r = rare();
  r.metadata = std::make_unique<OpMetadata>(ParseMetadataText(text));
  r.metadata_set = true;
  return *r.metadata;
}

void Instruction::set_metadata_from(const Instruction& other) {
  Rare& r = rare();
  r.metadata = std::make_unique<OpMetadata>(other.metadata());
  r.metadata_set = true;
  auto md = other.FindRawAttribute("metadata");
  if (!md) return;
  absl::string_view text(md->name.data(),
                         md->value.data() + md->value.size() - md->name.data());
  AppendAttribute(Attribute::Text(text, md->name.size(), AttrKind::kRaw));
}

bool Instruction::HasMetadataLocation() const {
  if (rare_ != nullptr && rare_->metadata_set) {
    const OpMetadata& md = metadata();
    return md.source_line != 0 || md.stack_frame_id != 0;
  }
  // The location keys follow the long op_name and source_file values:
  // searched from the end.
  absl::string_view text = MetadataText();
  for (size_t i = text.size(); i-- > 0;) {
    if (text[i] != '=') continue;
    absl::string_view key = text.substr(0, i);
    if (absl::EndsWith(key, "source_line") || absl::EndsWith(key, "stack_frame_id")) {
      return true;
    }
  }
  return false;
}

void Instruction::set_diagnostic_metadata(const OpMetadata& metadata) {
  Rare& r = rare();
  r.metadata = std::make_unique<OpMetadata>(metadata);
  r.metadata_set = true;
}

void Instruction::set_origin(const OpMetadata& metadata, SourceLoc loc,
                             absl::string_view origin_name) {
  Rare& r = rare();
  r.metadata = std::make_unique<OpMetadata>(metadata);
  r.metadata_set = true;
  r.has_loc = true;
  r.loc = loc;
  Origin& o = origin();
  o = Origin();
  o.name = arena().CopyString(origin_name);
}

void Instruction::set_origin_from(const Instruction& source,
                                  absl::string_view note) {
  // What was set on the source explicitly is copied now; otherwise its
  // offset and metadata text (views that outlive it: the source may be
  // removed and its memory reused) are kept and read when asked for.
  if (source.rare_ != nullptr &&
      (source.rare_->has_loc || source.rare_->metadata_set)) {
    set_origin(source.metadata(), source.loc(),
               note.empty() ? std::string(source.name())
                            : absl::StrCat(source.name(), " (", note, ")"));
    return;
  }
  if (rare_ != nullptr) {
    rare_->metadata.reset();
    rare_->metadata_set = false;
    rare_->has_loc = false;
  }
  const Origin* from = source.origin_or_null();
  Origin& o = origin();
  o = Origin();
  o.from_source = true;
  o.offset = from != nullptr && from->from_source ? from->offset : source.offset_;
  o.metadata = source.MetadataText();
  o.source_name = source.name();
  o.note = note;
}

void Instruction::set_input_from(const Instruction& source,
                                   absl::string_view computation) {
  // The input name and computation of `source` (read before this
  // instruction's origin is reset: `source` may be this one's own source).
  absl::string_view input_name = source.input_name();
  const Origin* from = source.origin_or_null();
  absl::string_view input_computation =
      from != nullptr && !from->input_computation.empty()
          ? from->input_computation
          : computation;
  if (source.rare_ != nullptr && source.rare_->has_loc) {
    // An explicit place (a pass-made instruction): copy it.
    set_origin(source.metadata(), source.loc(), source.origin_name());
  } else {
    if (rare_ != nullptr) {
      rare_->metadata.reset();
      rare_->metadata_set = false;
      rare_->has_loc = false;
    }
    Origin copy;
    if (from != nullptr && from->from_source) {
      copy = *from;  // the source's own source: the user's text
    } else {
      copy.from_source = true;
      copy.offset = source.offset_;
      copy.metadata = source.MetadataText();
      copy.source_name = source.name();
    }
    origin() = copy;
  }
  Origin& o = origin();
  o.input_name = input_name;
  o.input_computation = input_computation;
}

absl::string_view Instruction::input_name() const {
  const Origin* o = origin_or_null();
  return o != nullptr && !o->input_name.empty() ? o->input_name : name();
}

absl::string_view Instruction::input_computation() const {
  const Origin* o = origin_or_null();
  if (o != nullptr && !o->input_computation.empty()) {
    return o->input_computation;
  }
  return parent_ == nullptr ? absl::string_view() : parent_->name();
}

void Instruction::set_name(absl::string_view name) {
  SetName(arena().CopyString(name));
}

void Instruction::AddControlDependencyTo(Instruction* successor) {
  Rare& mine = rare();
  for (Instruction* s : mine.control_successors) {
    if (s == successor) return;
  }
  mine.control_successors.push_back(successor);
  Rare& theirs = successor->rare();
  theirs.control_predecessors.push_back(this);
  for (const Attribute& a : successor->attributes()) {
    if (a.kind() == AttrKind::kControlPredecessors) return;
  }
  successor->AppendAttribute(
      Attribute::Named("control-predecessors", AttrKind::kControlPredecessors));
}

void Instruction::DropAllControlDeps() {
  if (rare_ == nullptr) return;
  for (Instruction* pred : rare_->control_predecessors) {
    auto& succ = pred->rare().control_successors;
    succ.erase(std::remove(succ.begin(), succ.end(), this), succ.end());
  }
  for (Instruction* succ : rare_->control_successors) {
    auto& preds = succ->rare().control_predecessors;
    preds.erase(std::remove(preds.begin(), preds.end(), this), preds.end());
  }
  rare_->control_predecessors.clear();
  rare_->control_successors.clear();
}

// ---- frontend attributes ----

std::optional<std::vector<int64_t>> ParseIntegers(absl::string_view text) {
  std::vector<int64_t> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '-' || absl::ascii_isdigit(c)) {
      size_t j = i + 1;
      while (j < text.size() && absl::ascii_isdigit(text[j])) ++j;
      int64_t v = 0;
      if (!absl::SimpleAtoi(text.substr(i, j - i), &v)) return std::nullopt;
      out.push_back(v);
      i = j;
      continue;
    }
    if (c != '{' && c != '}' && c != ',' && !absl::ascii_isspace(c)) {
      return std::nullopt;
    }
    ++i;
  }
  return out;
}

bool SplitFrontendAttributes(
    absl::string_view text,
    absl::FunctionRef<void(absl::string_view, absl::string_view)> fn,
    const char** error) {
  auto fail = [&](const char* what) {
    if (error != nullptr) *error = what;
    return false;
  };
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') {
    return fail("expected '{...}'");
  }
  size_t i = 1;
  absl::string_view body = text.substr(0, text.size() - 1);
  while (i < body.size()) {
    while (i < body.size() && (body[i] == ' ' || body[i] == ',')) ++i;
    if (i >= body.size()) break;
    size_t key_start = i;
    while (i < body.size() && body[i] != '=' && body[i] != ' ') ++i;
    absl::string_view key = body.substr(key_start, i - key_start);
    while (i < body.size() && body[i] == ' ') ++i;
    if (i >= body.size() || body[i] != '=' || key.empty()) {
      return fail("expected key=value");
    }
    ++i;
    while (i < body.size() && body[i] == ' ') ++i;
    size_t value_start = i;
    if (i < body.size() && (body[i] == '"' || body[i] == '\'')) {
      char q = body[i++];
      while (i < body.size() && body[i] != q) {
        if (body[i] == '\\') ++i;
        ++i;
      }
      ++i;
    } else if (i < body.size() && body[i] == '{') {
      int depth = 0;
      while (i < body.size()) {
        char c = body[i];
        if (c == '"') {
          ++i;
          while (i < body.size() && body[i] != '"') {
            if (body[i] == '\\') ++i;
            ++i;
          }
        } else if (c == '{') {
          ++depth;
        } else if (c == '}') {
          if (--depth == 0) {
            ++i;
            break;
          }
        }
        ++i;
      }
    } else {
      return fail("expected a string value");
    }
    i = std::min(i, body.size());
    fn(key, body.substr(value_start, i - value_start));
  }
  return true;
}

bool Instruction::HasFrontendAttributesSlot() const {
  for (const Attribute& a : attributes()) {
    if (a.kind() == AttrKind::kFrontendAttributes) return true;
  }
  return false;
}

const std::vector<std::pair<std::string, std::string>>&
Instruction::frontend_attributes() const {
  static const auto* const kEmpty =
      new std::vector<std::pair<std::string, std::string>>();
  if (rare_ == nullptr || !rare_->frontend_parsed) {
    if (!HasFrontendAttributesSlot()) return *kEmpty;
    Rare& r = rare();
    auto raw = FindRawAttribute("frontend_attributes");
    if (raw) {
      SplitFrontendAttributes(raw->value, [&](absl::string_view key,
                                               absl::string_view value) {
        r.frontend.emplace_back(std::string(key), std::string(value));
      });
    }
    r.frontend_parsed = true;
  }
  return rare_->frontend;
}

std::optional<std::string> Instruction::GetFrontendAttribute(
    absl::string_view key) const {
  auto unquote = [](absl::string_view v) {
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) {
      return std::string(v.substr(1, v.size() - 2));
    }
    return std::string(v);
  };
  if (rare_ == nullptr || !rare_->frontend_parsed) {
    // Read from the text without keeping the pairs. Most instructions have
    // none: a look at the attribute kinds settles it (no name compares).
    if (!HasFrontendAttributesSlot()) return std::nullopt;
    auto raw = FindRawAttribute("frontend_attributes");
    if (!raw) return std::nullopt;
    std::optional<std::string> found;
    SplitFrontendAttributes(raw->value, [&](absl::string_view k,
                                             absl::string_view v) {
      if (!found && k == key) found = unquote(v);
    });
    return found;
  }
  for (const auto& [k, v] : rare_->frontend) {
    if (k == key) return unquote(v);
  }
  return std::nullopt;
}

bool Instruction::AddFrontendAttribute(absl::string_view key,
                                       absl::string_view value) {
  for (const auto& entry : frontend_attributes()) {
    if (entry.first == key) return false;
  }
  bool had_slot = HasFrontendAttributesSlot();
  Rare& r = rare();
  r.frontend_parsed = true;
  if (!had_slot) {
    AppendAttribute(
        Attribute::Named("frontend_attributes", AttrKind::kFrontendAttributes));
  }
  r.frontend.emplace_back(std::string(key), absl::StrCat("\"", value, "\""));
  // XLA prints frontend attributes sorted by key once it has rebuilt them.
  std::sort(r.frontend.begin(), r.frontend.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  flags_ |= kFrontendModified;
  return true;
}

bool Instruction::RemoveFrontendAttribute(absl::string_view key) {
  if (!GetFrontendAttribute(key).has_value()) return false;
  frontend_attributes();  // parses the text into rare().frontend
  Rare& r = rare();
  r.frontend.erase(std::remove_if(r.frontend.begin(), r.frontend.end(),
                                  [&](const auto& e) { return e.first == key; }),
                   r.frontend.end());
  flags_ |= kFrontendModified;
  return true;
}

void Instruction::DropFrontendAttributes() {
  Rare& r = rare();
  r.frontend.clear();
  r.frontend_parsed = true;
  size_t kept = 0;
  for (size_t i = 0; i < attribute_count_; ++i) {
    if (attributes_[i].kind() == AttrKind::kFrontendAttributes) continue;
    attributes_[kept++] = attributes_[i];
  }
  attribute_count_ = static_cast<uint16_t>(kept);
}

std::optional<RawAttribute> Instruction::FindRawAttribute(
    absl::string_view name) const {
  for (const Attribute& a : attributes()) {
    if ((a.kind() == AttrKind::kRaw ||
         a.kind() == AttrKind::kFrontendAttributes) &&
        a.name() == name && a.size_ > a.name_size_) {
      return RawAttribute{a.name(), a.value()};
    }
  }
  return std::nullopt;
}

absl::string_view WellKnownCustomCallTarget(absl::string_view target) {
  static constexpr absl::string_view kTargets[] = {
      "annotate_device_placement", "MoveToHost",      "MoveToDevice",
      "AllocateBuffer",            "PinToDevice",     "PinToDeviceSram",
      "X64SplitLow",               "X64SplitHigh",    "X64Combine",
      "Sharding",                  "SPMDFullToShardShape",
      "SPMDShardToFullShape",      "__cudnn$convForward",
  };
  for (absl::string_view known : kTargets) {
    if (known == target) return known;
  }
  return absl::string_view();
}

void Instruction::set_custom_call_target(absl::string_view target) {
  absl::string_view known = WellKnownCustomCallTarget(target);
  payload().custom_call_target =
      known.empty() ? arena().CopyString(target) : known;
}

void Instruction::set_sharding(std::optional<RawAttribute> sharding) {
  if (!sharding || FindRawAttribute("sharding")) return;
  // Printed among the raw attributes: `sharding=<text>`.
  std::string text = absl::StrCat("sharding=", sharding->value);
  AppendAttribute(Attribute::Text(arena().CopyString(text), 8, AttrKind::kRaw));
}

// ---- use lists ----
//
// users_ keeps first-use order. Small lists are searched linearly; a list
// that grows past kIndexedUsers gets a position index, and removals from it
// leave a nullptr hole that the next read compacts, so that adding or
// removing a user of a value with 100k users costs O(1) amortised.

namespace {
constexpr size_t kIndexedUsers = 32;
}  // namespace

void Instruction::CompactUsers() const {
  Rare& r = *rare_;
  size_t kept = 0;
  for (size_t i = 0; i < users_.size(); ++i) {
    if (users_[i] == nullptr) continue;
    users_[kept] = users_[i];
    if (r.user_index) (*r.user_index)[users_[kept]] = static_cast<uint32_t>(kept);
    ++kept;
  }
  users_.resize(kept);
  r.removed_users = 0;
}

void Instruction::EnsureUserIndex() {
  Rare& r = rare();
  if (r.user_index) return;
  if (r.removed_users > 0) CompactUsers();
  r.user_index =
      std::make_unique<absl::flat_hash_map<const Instruction*, uint32_t>>();
  r.user_index->reserve(users_.size() * 2);
  for (size_t i = 0; i < users_.size(); ++i) {
    r.user_index->emplace(users_[i], static_cast<uint32_t>(i));
  }
}

bool Instruction::HasUser(const Instruction* user) {
  if (users_.size() > kIndexedUsers) EnsureUserIndex();
  if (rare_ != nullptr && rare_->user_index) {
    return rare_->user_index->contains(user);
  }
  return std::find(users_.begin(), users_.end(), user) != users_.end();
}

void Instruction::AddUser(Instruction* user) {
  if (HasUser(user)) return;
  users_.push_back(user);
  if (rare_ != nullptr && rare_->user_index) {
    rare_->user_index->emplace(user, static_cast<uint32_t>(users_.size() - 1));
  }
}

void Instruction::RemoveUser(Instruction* user) {
  if (users_.size() > kIndexedUsers) EnsureUserIndex();
  if (rare_ != nullptr && rare_->user_index) {
    auto it = rare_->user_index->find(user);
    if (it == rare_->user_index->end()) return;
    users_[it->second] = nullptr;
    rare_->user_index->erase(it);
    ++rare_->removed_users;
    return;
  }
  auto it = std::find(users_.begin(), users_.end(), user);
  if (it != users_.end()) users_.erase(it);
}

void Instruction::ClearUsers() {
  users_.clear();
  if (rare_ != nullptr) {
    rare_->user_index.reset();
    rare_->removed_users = 0;
  }
}

void Instruction::ReplaceOperandWith(int64_t index, Instruction* new_operand) {
  Instruction* old = operands_[index];
  if (old == new_operand) return;
  operands_[index] = new_operand;
  if (std::find(operands_, operands_ + operand_count_, old) ==
      operands_ + operand_count_) {
    old->RemoveUser(this);
  }
  new_operand->AddUser(this);
}

void Instruction::ReplaceOperandsWith(
    const absl::flat_hash_map<const Instruction*, Instruction*>& replacement) {
  std::vector<Instruction*> old_operands;
  std::vector<Instruction*> new_operands;
  for (uint32_t i = 0; i < operand_count_; ++i) {
    auto it = replacement.find(operands_[i]);
    if (it == replacement.end() || it->second == operands_[i]) continue;
    old_operands.push_back(operands_[i]);
    new_operands.push_back(it->second);
    operands_[i] = it->second;
  }
  if (old_operands.empty()) return;
  absl::flat_hash_set<const Instruction*> still(operands_,
                                                operands_ + operand_count_);
  for (Instruction* old : old_operands) {
    if (!still.contains(old)) old->RemoveUser(this);  // repeats are no-ops
  }
  for (Instruction* added : new_operands) added->AddUser(this);
}

void Instruction::ReplaceUseWith(Instruction* user, Instruction* other) {
  if (other == this) return;
  for (int64_t i = 0; i < user->operand_count(); ++i) {
    if (user->operands_[i] == this) user->operands_[i] = other;
  }
  RemoveUser(user);
  other->AddUser(user);
}

void Instruction::ReplaceAllUsesWith(Instruction* other) {
  if (other == this) return;
  absl::Span<Instruction* const> current = users();
  std::vector<Instruction*> users(current.begin(), current.end());
  for (Instruction* user : users) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operands_[i] == this) user->operands_[i] = other;
    }
    other->AddUser(user);
  }
  ClearUsers();
  if (parent_ != nullptr && parent_->root() == this) parent_->set_root(other);
}

// ---- InstructionBuilder ----

void InstructionBuilder::SetCustomCallTarget(Instruction* instr,
                                             absl::string_view target) {
  instr->set_custom_call_target(target);
  instr->AppendAttribute(
      Attribute::Named("custom_call_target", AttrKind::kCustomCallTarget));
}

void InstructionBuilder::SetDynamicSliceSizes(Instruction* instr,
                                              absl::Span<const int64_t> sizes) {
  Instruction::Payload& p = instr->payload();
  p.dynamic_slice_sizes = instr->arena().CopyArray(sizes.data(), sizes.size());
  p.dynamic_slice_size_count = static_cast<uint32_t>(sizes.size());
  instr->AppendAttribute(
      Attribute::Named("dynamic_slice_sizes", AttrKind::kDynamicSliceSizes));
}

void InstructionBuilder::SetLiteral(Instruction* instr,
                                    absl::string_view literal) {
  instr->payload().literal = instr->arena().CopyString(literal);
}

void InstructionBuilder::SetSliceDims(
    Instruction* instr, absl::Span<const Instruction::SliceDim> dims) {
  std::string text = "slice={";
  for (size_t i = 0; i < dims.size(); ++i) {
    absl::StrAppend(&text, i ? ", " : "", "[", dims[i].start, ":", dims[i].limit);
    if (dims[i].stride != 1) absl::StrAppend(&text, ":", dims[i].stride);
    text += "]";
  }
  text += "}";
  absl::string_view kept = instr->arena().CopyString(text);
  Instruction::Extra& e = instr->extra();
  e.slice_dims = instr->arena().CopyArray(dims.data(), dims.size());
  e.slice_dim_count = static_cast<uint32_t>(dims.size());
  instr->AppendAttribute(Attribute::Text(kept, 5, AttrKind::kRaw));
}

void InstructionBuilder::SetTupleIndex(Instruction* instr, int64_t index) {
  instr->index_ = index;
  instr->AppendAttribute(Attribute::Named("index", AttrKind::kIndex));
}

void InstructionBuilder::SetCalledComputations(
    Instruction* instr, absl::string_view attr_name,
    absl::Span<Computation* const> computations, bool is_list) {
  Arena& arena = instr->arena();
  Instruction::Payload& p = instr->payload();
  auto* called = arena.New<Attribute::Called>();
  called->name = attr_name;
  called->first = p.called_count;
  called->count = static_cast<uint32_t>(computations.size());
  called->is_list = is_list;
  Computation** all = arena.NewArray<Computation*>(p.called_count +
                                                   computations.size());
  std::copy(p.called, p.called + p.called_count, all);
  std::copy(computations.begin(), computations.end(), all + p.called_count);
  p.called = all;
  p.called_count += static_cast<uint32_t>(computations.size());
  instr->AppendAttribute(Attribute::CalledList(called));
  if (!(instr->flags_ & Instruction::kKey) && instr->parent_ != nullptr) {
    instr->parent_->NoteKeyInstruction(instr);
  }
}

void InstructionBuilder::CopyOutputToOperandAliasing(const Instruction& from,
                                                     Instruction* to) {
  for (const Attribute& a : from.attributes()) {
    if (a.kind() != AttrKind::kRaw || a.name() != "output_to_operand_aliasing") {
      continue;
    }
    to->AppendAttribute(a);
    if (from.rare_ != nullptr) to->rare().aliasing = from.rare_->aliasing;
    return;
  }
}

void InstructionBuilder::SetAsyncExecutionThread(Instruction* instr,
                                                 absl::string_view thread) {
  constexpr absl::string_view kName = "async_execution_thread";
  absl::string_view text = instr->arena().CopyString(
      absl::StrCat(kName, "=\"", thread, "\""));
  instr->extra().async_execution_thread =
      text.substr(kName.size() + 2, thread.size());
  instr->AppendAttribute(Attribute::Text(text, kName.size(), AttrKind::kRaw));
}

void InstructionBuilder::CopyAttributes(const Instruction& from,
                                        Instruction* to) {
  // Views into `from`'s text stay valid: both live in the same module.
  if (from.payload_ != nullptr) {
    // The origin is not an attribute: a copy reports its own name and place.
    to->payload() = *from.payload_;
    to->payload_->extra = nullptr;
    to->payload_->origin = nullptr;
    if (from.payload_->extra != nullptr) {
      to->extra() = *from.payload_->extra;
    }
  } else if (to->payload_ != nullptr) {
    *to->payload_ = Instruction::Payload();
  }
  to->index_ = from.index_;
  if (from.rare_ != nullptr) {
    Instruction::Rare& r = to->rare();
    r.aliasing = from.rare_->aliasing;
    r.frontend = from.rare_->frontend;
    r.frontend_parsed = from.rare_->frontend_parsed;
  }
  if (from.flags_ & Instruction::kFrontendModified) {
    to->flags_ |= Instruction::kFrontendModified;
  }
  // Metadata: parsed from the copied attribute when asked for; what was set
  // on `from` explicitly (or parsed already) is copied.
  if (from.rare_ != nullptr && from.rare_->metadata_set) {
    Instruction::Rare& r = to->rare();
    r.metadata = from.rare_->metadata
                     ? std::make_unique<OpMetadata>(*from.rare_->metadata)
                     : nullptr;
    r.metadata_set = from.rare_->metadata != nullptr;
  } else if (from.origin_or_null() != nullptr &&
             from.origin_or_null()->from_source) {
    // `from` reads its metadata from its source's text, which `to` lacks.
    const OpMetadata& md = from.metadata();
    Instruction::Rare& r = to->rare();
    r.metadata = std::make_unique<OpMetadata>(md);
    r.metadata_set = true;
  }
  size_t kept = 0;
  for (const Attribute& a : from.attributes()) {
    // Control dependencies are not copied (XLA's Clone does not copy them).
    if (a.kind() != AttrKind::kControlPredecessors) ++kept;
  }
  if (!to->called_computations().empty() && to->parent_ != nullptr &&
      !(to->flags_ & Instruction::kKey)) {
    to->flags_ |= Instruction::kKey;
    to->parent_->key_instructions_.push_back(to);
  }
  to->attributes_ = to->arena().NewArray<Attribute>(kept);
  to->attribute_count_ = static_cast<uint16_t>(kept);
  size_t i = 0;
  for (const Attribute& a : from.attributes()) {
    if (a.kind() != AttrKind::kControlPredecessors) to->attributes_[i++] = a;
  }
}

// ---- Computation ----

bool Computation::IsEntry() const {
  return parent_ != nullptr && parent_->entry() == this;
}

SourceLoc Computation::loc() const {
  if (offset_ == UINT32_MAX || parent_ == nullptr) return SourceLoc{};
  return parent_->LocAt(offset_);
}

std::vector<Instruction*> Computation::instructions() const {
  std::vector<Instruction*> out;
  out.reserve(instructions_.size() - dead_count_);
  for (const auto& instr : instructions_) {
    if (!instr->IsDead()) out.push_back(instr.get());
  }
  return out;
}

int64_t Computation::instruction_count() const {
  return static_cast<int64_t>(instructions_.size()) - dead_count_;
}

uint32_t Computation::NewTraversal() const {
  // Marks below `epoch_` are stale; a wrap resets every mark.
  if (epoch_ > UINT32_MAX - 4) {
    for (const auto& instr : instructions_) instr->mark_ = 0;
    epoch_ = 0;
  }
  epoch_ += 2;
  return epoch_;
}

std::vector<Instruction*> Computation::MakeInstructionPostOrder() const {
  std::vector<Instruction*> order;
  order.reserve(instructions_.size() - dead_count_);
  const uint32_t open = NewTraversal();
  const uint32_t done = open + 1;
  // Iterative DFS, so that hostile inputs cannot exhaust the stack.
  std::vector<std::pair<Instruction*, size_t>> stack;
  for (const auto& owned : instructions_) {
    Instruction* start = owned.get();
    if (start->IsDead() || start->mark_ >= open) continue;
    // Printed HLO stores operands before their users: then the start is
    // done at once (what the DFS below would find, without its stack).
    if (start->rare_ == nullptr) {
      bool ready = true;
      for (uint32_t i = 0; i < start->operand_count_; ++i) {
        Instruction* dep = start->operands_[i];
        if (dep->mark_ != done && !dep->IsDead()) {
          ready = false;
          break;
        }
      }
      if (ready) {
        start->mark_ = done;
        order.push_back(start);
        continue;
      }
    }
    stack.emplace_back(start, 0);
    start->mark_ = open;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      absl::Span<Instruction* const> ctrl = node->control_predecessors();
      size_t n_ctrl = ctrl.size();
      size_t total = n_ctrl + node->operand_count_;
      if (next < total) {
        Instruction* dep =
            next < n_ctrl ? ctrl[next] : node->operands_[next - n_ctrl];
        ++next;
        if (dep->IsDead() || dep->mark_ >= open) continue;
        dep->mark_ = open;
        stack.emplace_back(dep, 0);
        continue;
      }
      node->mark_ = done;
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

Instruction* Computation::AddInstruction(HloOpcode opcode, const Shape& shape,
                                         absl::Span<Instruction* const> operands,
                                         absl::string_view name_prefix) {
  Arena& arena = parent_->arena_;
  Instruction* instr = parent_->NewInstruction();
  instr->opcode_ = opcode;
  instr->SetShape(parent_->InternShape(shape), /*owned=*/false);
  instr->parent_ = this;
  instr->SetName(arena.CopyString(parent_->UniqueName(name_prefix)));
  instr->operands_ = arena.CopyArray(operands.data(), operands.size());
  instr->operand_count_ = static_cast<uint32_t>(operands.size());
  for (Instruction* op : operands) op->AddUser(instr);
  instructions_.push_back(InstructionPtr(instr));
  NoteKeyInstruction(instr);
  return instr;
}

Instruction* Computation::AddParameter(const Shape& shape,
                                       absl::string_view name_prefix) {
  Instruction* param = AddInstruction(HloOpcode::kParameter, shape, {}, name_prefix);
  param->index_ = static_cast<int64_t>(params_.size());
  params_.push_back(param);
  return param;
}

void Computation::NoteKeyInstruction(Instruction* instr) {
  if (instr->flags_ & Instruction::kKey) return;
  if (instr->opcode_ == HloOpcode::kParameter ||
      instr->opcode_ == HloOpcode::kCustomCall ||
      instr->opcode_ == HloOpcode::kAsyncStart ||
      !instr->called_computations().empty()) {
    instr->flags_ |= Instruction::kKey;
    key_instructions_.push_back(instr);
  }
}

void Computation::RemoveInstruction(Instruction* instruction) {
  if (instruction->IsDead()) return;
  instruction->flags_ |= Instruction::kDead;
  ++dead_count_;
  for (Instruction* op : instruction->operands()) op->RemoveUser(instruction);
  if (instruction->rare_ == nullptr) return;
  Instruction::Rare& r = *instruction->rare_;
  for (Instruction* pred : r.control_predecessors) {
    auto& succ = pred->rare().control_successors;
    succ.erase(std::remove(succ.begin(), succ.end(), instruction), succ.end());
  }
  for (Instruction* succ : r.control_successors) {
    auto& preds = succ->rare().control_predecessors;
    preds.erase(std::remove(preds.begin(), preds.end(), instruction),
                preds.end());
    // The successor inherits the removed instruction's predecessors.
    for (Instruction* pred : r.control_predecessors) {
      if (std::find(preds.begin(), preds.end(), pred) == preds.end()) {
        preds.push_back(pred);
        pred->rare().control_successors.push_back(succ);
      }
    }
  }
  r.control_predecessors.clear();
  r.control_successors.clear();
}

void Computation::RemoveInstructionAndUnusedOperands(Instruction* instruction) {
  std::vector<Instruction*> worklist = {instruction};
  while (!worklist.empty()) {
    Instruction* current = worklist.back();
    worklist.pop_back();
    if (current->IsDead() || current->user_count() != 0 || current == root_) {
      continue;
    }
    if (current->opcode_ == HloOpcode::kParameter) continue;
    std::optional<RawAttribute> side_effect =
        current->FindRawAttribute("custom_call_has_side_effect");
    if (current != instruction && current->opcode_ == HloOpcode::kCustomCall &&
        side_effect && side_effect->value == "true") {
      continue;
    }
    absl::Span<Instruction* const> operands = current->operands();
    RemoveInstruction(current);
    for (Instruction* op : operands) worklist.push_back(op);
  }
}

void Computation::Sweep() {
  if (dead_count_ == 0) return;
  size_t kept = 0;
  for (auto& instr : instructions_) {
    if (instr->IsDead()) {
      parent_->Recycle(std::move(instr));
      continue;
    }
    instructions_[kept++] = std::move(instr);
  }
  instructions_.resize(kept);
  key_instructions_.erase(
      std::remove_if(key_instructions_.begin(), key_instructions_.end(),
                     [](const Instruction* i) { return i->IsDead(); }),
      key_instructions_.end());
  dead_count_ = 0;
}

// ---- Module ----

Module::Module() = default;

Module::~Module() {
  // Instructions point at shapes_ and arena memory; drop them first.
  computations_.clear();
}

Instruction* Module::NewInstruction() {
  void* memory;
  if (free_instructions_.empty()) {
    memory = arena_.Allocate(sizeof(Instruction), alignof(Instruction));
  } else {
    memory = free_instructions_.back();
    free_instructions_.pop_back();
  }
  return new (memory) Instruction();
}

void Module::Recycle(InstructionPtr instruction) {
  Instruction* instr = instruction.release();
  retired_names_.push_back(RetiredName{instr->name(), instr->name_prefix_});
  if (instr->payload_ != nullptr) {
    if (instr->payload_->extra != nullptr) {
      free_extras_.push_back(instr->payload_->extra);
    }
    if (instr->payload_->origin != nullptr) {
      free_origins_.push_back(instr->payload_->origin);
    }
    free_payloads_.push_back(instr->payload_);
  }
  Instruction::Rare* rare = instr->rare_;
  instr->~Instruction();  // destroys *rare
  if (rare != nullptr) free_rares_.push_back(rare);
  free_instructions_.push_back(instr);
}

namespace {
template <typename H>
H HashShape(H h, const Shape& s) {
  h = H::combine(std::move(h), s.element_type, s.dimensions, s.has_layout,
                 s.tuple_shapes.size());
  if (s.has_layout) {
    const Layout& l = s.layout;
    h = H::combine(std::move(h), l.minor_to_major, l.memory_space,
                   l.element_size_in_bits, l.tiles.size(), l.dim_level_types,
                   l.split_configs, l.physical_shape);
    for (const Tile& t : l.tiles) h = H::combine(std::move(h), t.dimensions);
  }
  for (const Shape& sub : s.tuple_shapes) h = HashShape(std::move(h), sub);
  return h;
}
struct HashableShape {
  const Shape* shape;
  template <typename H>
  friend H AbslHashValue(H h, const HashableShape& s) {
    return HashShape(std::move(h), *s.shape);
  }
};
}  // namespace

size_t Module::ShapeHash::operator()(const Shape* shape) const {
  return absl::Hash<HashableShape>()(HashableShape{shape});
}

const Shape* Module::InternShape(const Shape& shape) {
  // A shape the pool already holds is its own answer (no hashing).
  if (pooled_.contains(&shape)) return &shape;
  auto it = shape_pool_.find(&shape);
  if (it != shape_pool_.end()) return *it;
  shapes_.push_back(std::make_unique<Shape>(shape));
  shape_pool_.insert(shapes_.back().get());
  pooled_.insert(shapes_.back().get());
  return shapes_.back().get();
}

Computation* Module::FindComputation(absl::string_view name) const {
  auto it = computation_by_name_.find(name);
  return it == computation_by_name_.end() ? nullptr : it->second;
}

SourceLoc Module::LocAt(uint32_t offset) const {
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    const char* data = source_text_.data();
    const char* end = data + source_text_.size();
    for (const char* p = data; p < end;) {
      const void* nl = std::memchr(p, '\n', end - p);
      if (nl == nullptr) break;
      p = static_cast<const char*>(nl) + 1;
      line_starts_.push_back(static_cast<uint32_t>(p - data));
    }
  }
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  size_t col = offset - line_starts_[line - 1] + 1;
  return SourceLoc{static_cast<uint32_t>(line + line_offset_),
                   static_cast<uint32_t>(col)};
}

namespace {
// Splits `name` into a root and a numeric suffix: "copy.12" -> ("copy", 12);
// "copy" -> ("copy", 0); "copy.0" and "copy.x" keep their whole text as root.
std::pair<absl::string_view, int64_t> SplitNumericSuffix(absl::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == absl::string_view::npos || dot + 1 == name.size()) {
    return {name, 0};
  }
  absl::string_view digits = name.substr(dot + 1);
  if (digits.size() > 18 || digits[0] == '0') return {name, 0};
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return {name, 0};
  }
  int64_t id = 0;
  if (!absl::SimpleAtoi(digits, &id) || id <= 0) return {name, 0};
  return {name.substr(0, dot), id};
}
}  // namespace

Module::NameIds& Module::IdsFor(absl::string_view root) {
  auto it = names_.find(root);
  if (it != names_.end()) return it->second;
  // Past a few roots (a pass that copies whole computations asks for one
  // root per name it copies), one scan indexes every name instead of one
  // scan per root: linear however many roots are asked for.
  if (!names_indexed_ && ++lazy_root_scans_ > kLazyRootScans) {
    names_indexed_ = true;
    auto index = [&](absl::string_view name) {
      auto [r, id] = SplitNumericSuffix(name);
      auto found = names_.find(r);
      if (found == names_.end()) {
        found = names_.emplace(std::string(r), NameIds()).first;
      }
      found->second.used.insert(id);
    };
    for (const auto& comp : computations_) {
      for (const auto& instr : comp->instructions_) index(instr->name());
    }
    for (const RetiredName& retired : retired_names_) index(retired.name);
  }
  if (names_indexed_) return names_[std::string(root)];
  // First request for this root: every name the module holds, held, or
  // reserved with this root is taken (the index is built lazily so that
  // parsing pays nothing for it).
  NameIds& ids = names_[std::string(root)];
  // The prefix kept in each instruction rules out almost every name without
  // reading its text.
  const uint32_t prefix = Prefix4(root);
  const uint32_t mask =
      root.size() >= 4 ? ~uint32_t{0} : (uint32_t{1} << (8 * root.size())) - 1;
  auto note = [&](const Instruction& instr) {
    if (instr.name_size_ < root.size() ||
        (instr.name_prefix_ & mask) != prefix) {
      return;
    }
    absl::string_view name = instr.name();
    if (name.substr(0, root.size()) != root) return;
    auto [r, id] = SplitNumericSuffix(name);
    if (r == root) ids.used.insert(id);
  };
  for (const auto& comp : computations_) {
    for (const auto& instr : comp->instructions_) note(*instr);
  }
  for (const RetiredName& retired : retired_names_) {
    if (retired.name.size() < root.size() ||
        (retired.prefix & mask) != prefix ||
        retired.name.substr(0, root.size()) != root) {
      continue;
    }
    auto [r, id] = SplitNumericSuffix(retired.name);
    if (r == root) ids.used.insert(id);
  }
  return ids;
}

void Module::ReserveName(absl::string_view name) {
  auto [root, id] = SplitNumericSuffix(name);
  IdsFor(root).used.insert(id);
}

std::string Module::UniqueName(absl::string_view prefix) {
  auto [root, id] = SplitNumericSuffix(prefix);
  NameIds& ids = IdsFor(root);
  if (!ids.used.contains(id) && id >= ids.next) {
    ids.used.insert(id);
    return std::string(prefix);
  }
  int64_t next = std::max(ids.next, id);
  while (ids.used.contains(next)) ++next;
  ids.used.insert(next);
  ids.next = next + 1;
  if (next == 0) return std::string(root);
  return absl::StrCat(root, ".", next);
}

std::optional<Module::SourcePosition> Module::ResolveSource(
    const OpMetadata& metadata) const {
  if (!metadata.source_file.empty()) {
    return SourcePosition{metadata.source_file, metadata.source_line, ""};
  }
  int64_t frame_id = metadata.stack_frame_id;
  if (frame_id <= 0 ||
      frame_id > static_cast<int64_t>(stack_frames_.frames.size())) {
    return std::nullopt;
  }
  const auto& frame = stack_frames_.frames[frame_id - 1];
  int64_t loc_id = frame.file_location_id;
  if (loc_id <= 0 ||
      loc_id > static_cast<int64_t>(stack_frames_.file_locations.size())) {
    return std::nullopt;
  }
  const auto& loc = stack_frames_.file_locations[loc_id - 1];
  SourcePosition pos;
  pos.line = loc.line;
  if (loc.file_name_id > 0 &&
      loc.file_name_id <= static_cast<int64_t>(stack_frames_.file_names.size())) {
    pos.file = stack_frames_.file_names[loc.file_name_id - 1];
  }
  if (loc.function_name_id > 0 &&
      loc.function_name_id <=
          static_cast<int64_t>(stack_frames_.function_names.size())) {
    pos.function = stack_frames_.function_names[loc.function_name_id - 1];
  }
  return pos;
}

Computation* Module::AddComputation(absl::string_view name_prefix,
                                    absl::string_view execution_thread,
                                    const Computation* before) {
  auto [root, id] = SplitNumericSuffix(name_prefix);
  std::string name(name_prefix);
  for (int64_t next = std::max<int64_t>(id, 1);
       computation_by_name_.contains(name); ++next) {
    name = absl::StrCat(root, ".", next);
  }
  auto comp = std::make_unique<Computation>();
  Computation* raw = comp.get();
  raw->name_ = std::move(name);
  raw->parent_ = this;
  raw->execution_thread_ = std::string(execution_thread);
  auto at = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == before; });
  computations_.insert(at, std::move(comp));
  computation_by_name_[raw->name_] = raw;
  return raw;
}

void Module::Sweep() {
  for (auto& comp : computations_) comp->Sweep();
}

void Module::RemoveComputations(
    absl::FunctionRef<bool(const Computation*)> remove) {
  size_t kept = 0;
  for (auto& comp : computations_) {
    if (comp.get() == entry_ || !remove(comp.get())) {
      computations_[kept++] = std::move(comp);
      continue;
    }
    computation_by_name_.erase(comp->name_);
    // Names stay taken (IdsFor reads the retired ones).
    for (const auto& instr : comp->instructions_) {
      retired_names_.push_back(RetiredName{instr->name(), instr->name_prefix_});
    }
    comp.reset();
  }
  computations_.resize(kept);
}

}  // namespace hloff
